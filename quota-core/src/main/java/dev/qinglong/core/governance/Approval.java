package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Sha256Digest;

/**
 * The four-eyes gate of one proposal. Pending until exactly one decision is recorded; {@code
 * decisionId}, {@code decision}, {@code decidedBy} and {@code decidedAtMs} are null while pending.
 */
public record Approval(
    String approvalId,
    String proposalId,
    String projectId,
    Sha256Digest actionDigest,
    String proposedBy,
    ProposalState state,
    String decisionId,
    Decision decision,
    String decidedBy,
    Long decidedAtMs,
    long createdAtMs) {

  public boolean pending() {
    return state == ProposalState.PENDING;
  }
}
