package dev.qinglong.core.governance;

/** A proposal and whether this call created it (false: exact replay of its actionRef). */
public record ProposeResult(Proposal proposal, boolean created) {}
