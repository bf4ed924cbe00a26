package dev.qinglong.jdbc;

import java.util.Objects;

/**
 * A dialect's statements for {@link JdbcGovernanceStore}. Parameter order is fixed by the store:
 *
 * @param insertProposal 13 columns in table order; inserts nothing when the Project already has the
 *     actionRef ({@code ON CONFLICT (project_id, action_ref) DO NOTHING})
 * @param insertApproval project, approval, proposal, action digest, proposer, state, created at
 * @param proposalById project, proposal id; the 13 proposal columns
 * @param proposalByRef project, actionRef; the 13 proposal columns
 * @param approvalById project, approval id; the 11 approval columns
 * @param decideApproval state, decision id, decision, decided by, decided at, project, approval id,
 *     project, decision id; updates only a pending approval whose decision id is unused
 * @param followDecision state, updated at, project, project, approval id
 */
public record GovernanceSql(
    String insertProposal,
    String insertApproval,
    String proposalById,
    String proposalByRef,
    String approvalById,
    String decideApproval,
    String followDecision) {
  public GovernanceSql {
    Objects.requireNonNull(insertProposal);
    Objects.requireNonNull(insertApproval);
    Objects.requireNonNull(proposalById);
    Objects.requireNonNull(proposalByRef);
    Objects.requireNonNull(approvalById);
    Objects.requireNonNull(decideApproval);
    Objects.requireNonNull(followDecision);
  }
}
