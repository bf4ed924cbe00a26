package dev.qinglong.core.governance;

/** What inspect returns: a proposal with its approval. */
public record Inspection(Proposal proposal, Approval approval) {}
