package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Sha256Digest;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The approval gate of one proposal. Pending until a {@code reject}, or until the {@code
 * requiredApprovals}-th {@code approve} of distinct approvers (never the proposer). {@code
 * decisionId}, {@code decision}, {@code decidedBy} and {@code decidedAtMs} are the decision that
 * ended it (null while pending); {@code decisions} is every decision recorded, in the order they
 * were recorded. With one required approval the two say the same.
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
    long createdAtMs,
    int requiredApprovals,
    List<ApprovalDecision> decisions) {

  public Approval {
    ApprovalPolicy.requireRequiredApprovals(requiredApprovals);
    decisions = List.copyOf(Objects.requireNonNull(decisions, "decisions"));
  }

  /** A new pending approval of {@code proposal} that needs {@code requiredApprovals}. */
  public static Approval pending(Proposal proposal, int requiredApprovals) {
    return new Approval(
        proposal.approvalId(),
        proposal.proposalId(),
        proposal.projectId(),
        proposal.actionDigest(),
        proposal.proposedBy(),
        ProposalState.PENDING,
        null,
        null,
        null,
        null,
        proposal.createdAtMs(),
        requiredApprovals,
        List.of());
  }

  /** This approval with {@code decisions} as its recorded decisions. */
  public Approval withDecisions(List<ApprovalDecision> decisions) {
    return new Approval(
        approvalId,
        proposalId,
        projectId,
        actionDigest,
        proposedBy,
        state,
        decisionId,
        decision,
        decidedBy,
        decidedAtMs,
        createdAtMs,
        requiredApprovals,
        decisions);
  }

  public boolean pending() {
    return state == ProposalState.PENDING;
  }

  /** The decision recorded under {@code decisionId}, or empty. */
  public Optional<ApprovalDecision> decisionUnder(String decisionId) {
    return decisions.stream().filter(d -> d.decisionId().equals(decisionId)).findFirst();
  }

  /** Whether {@code userId} has decided this approval (under any decision id). */
  public boolean hasDecided(String userId) {
    return decisions.stream().anyMatch(d -> d.decidedBy().equals(userId));
  }

  /** How many approvers approved so far. */
  public int approvals() {
    return (int) decisions.stream().filter(d -> d.decision() == Decision.APPROVE).count();
  }
}
