package dev.qinglong.core.governance;

/** A validated decision to record. */
public record DecisionCommand(
    String projectId,
    String approvalId,
    String decisionId,
    Decision decision,
    String decidedBy,
    long decidedAtMs) {}
