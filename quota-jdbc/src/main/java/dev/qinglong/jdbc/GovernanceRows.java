package dev.qinglong.jdbc;

import dev.qinglong.core.governance.ActionType;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.Decision;
import dev.qinglong.core.governance.DecisionCommand;
import dev.qinglong.core.governance.Inspection;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.governance.ProposalState;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.kernel.StoreUnavailableException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The proposal and approval rows of {@link JdbcGovernanceStore}: each statement next to the code
 * that binds it, and the row mappers. Standard SQL that PostgreSQL and SQLite both run.
 */
final class GovernanceRows {
  private GovernanceRows() {}

  /** The proposal columns {@link #proposal} maps, without a WHERE clause. */
  static final String PROPOSALS =
      """
      SELECT project_id, proposal_id, approval_id, action_ref, action_type, package_name,
             package_version, artifact_digest, action_digest, proposed_by, state,
             created_at_ms, updated_at_ms
      FROM plugin_package_proposals
      """;

  private static final String INSERT_PROPOSAL =
      """
      INSERT INTO plugin_package_proposals
        (project_id, proposal_id, approval_id, action_ref, action_type, package_name,
         package_version, artifact_digest, action_digest, proposed_by, state,
         created_at_ms, updated_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, action_ref) DO NOTHING
      """;

  /** False if the Project already has a proposal with this actionRef: nothing inserted. */
  static boolean insertProposal(Connection c, Proposal p) throws SQLException {
    Sha256Digest artifact = p.action().artifactDigest();
    return JdbcRows.update(
            c,
            INSERT_PROPOSAL,
            p.projectId(),
            p.proposalId(),
            p.approvalId(),
            p.actionRef(),
            p.action().type().wireName(),
            p.action().packageName(),
            p.action().version(),
            artifact == null ? null : artifact.value(),
            p.actionDigest().value(),
            p.proposedBy(),
            p.state().wireName(),
            p.createdAtMs(),
            p.updatedAtMs())
        == 1;
  }

  private static final String INSERT_APPROVAL =
      """
      INSERT INTO plugin_package_approvals
        (project_id, approval_id, proposal_id, action_digest, proposed_by, state, created_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """;

  static void insertApproval(Connection c, Approval a) throws SQLException {
    JdbcRows.update(
        c,
        INSERT_APPROVAL,
        a.projectId(),
        a.approvalId(),
        a.proposalId(),
        a.actionDigest().value(),
        a.proposedBy(),
        a.state().wireName(),
        a.createdAtMs());
  }

  static Optional<Proposal> proposalById(Connection c, String projectId, String proposalId)
      throws SQLException {
    return proposalBy(c, "proposal_id", projectId, proposalId);
  }

  static Optional<Proposal> proposalByRef(Connection c, String projectId, String actionRef)
      throws SQLException {
    return proposalBy(c, "action_ref", projectId, actionRef);
  }

  /** The Project's proposal whose {@code column} (a unique key in the Project) is {@code key}. */
  private static Optional<Proposal> proposalBy(
      Connection c, String column, String projectId, String key) throws SQLException {
    String query = PROPOSALS + "WHERE project_id = ? AND " + column + " = ?";
    return Optional.ofNullable(
        JdbcRows.one(c, query, "proposal", GovernanceRows::proposal, projectId, key));
  }

  /** A row of {@link #PROPOSALS}; its action digest must match the action it stores. */
  static Proposal proposal(ResultSet rs) throws SQLException {
    String artifact = rs.getString("artifact_digest");
    PluginPackageAction action =
        new PluginPackageAction(
            ActionType.fromWire(rs.getString("action_type")),
            rs.getString("package_name"),
            rs.getString("package_version"),
            artifact == null ? null : new Sha256Digest(artifact));
    Sha256Digest digest = new Sha256Digest(rs.getString("action_digest"));
    if (!digest.equals(action.digest())) {
      throw new StoreUnavailableException("stored proposal does not match its action digest");
    }
    return new Proposal(
        rs.getString("proposal_id"),
        rs.getString("approval_id"),
        rs.getString("project_id"),
        rs.getString("action_ref"),
        action,
        digest,
        rs.getString("proposed_by"),
        ProposalState.fromWire(rs.getString("state")),
        rs.getLong("created_at_ms"),
        rs.getLong("updated_at_ms"));
  }

  private static final String APPROVAL_BY_ID =
      """
      SELECT project_id, approval_id, proposal_id, action_digest, proposed_by, state,
             decision_id, decision, decided_by, decided_at_ms, created_at_ms
      FROM plugin_package_approvals
      WHERE project_id = ? AND approval_id = ?
      """;

  /**
   * A proposal with the approval it names, in one statement (one round trip, one snapshot): the
   * approval's columns carry the prefix {@code a_}; they are all NULL when the approval is missing.
   */
  private static final String PROPOSAL_WITH_APPROVAL =
      """
      SELECT p.project_id, p.proposal_id, p.approval_id, p.action_ref, p.action_type,
             p.package_name, p.package_version, p.artifact_digest, p.action_digest,
             p.proposed_by, p.state, p.created_at_ms, p.updated_at_ms,
             a.project_id AS a_project_id, a.approval_id AS a_approval_id,
             a.proposal_id AS a_proposal_id, a.action_digest AS a_action_digest,
             a.proposed_by AS a_proposed_by, a.state AS a_state, a.decision_id AS a_decision_id,
             a.decision AS a_decision, a.decided_by AS a_decided_by,
             a.decided_at_ms AS a_decided_at_ms, a.created_at_ms AS a_created_at_ms
      FROM plugin_package_proposals p
      LEFT JOIN plugin_package_approvals a
        ON a.project_id = p.project_id AND a.approval_id = p.approval_id
      WHERE p.project_id = ? AND p.proposal_id = ?
      """;

  static Optional<Inspection> proposalWithApproval(
      Connection c, String projectId, String proposalId) throws SQLException {
    return Optional.ofNullable(
        JdbcRows.one(
            c,
            PROPOSAL_WITH_APPROVAL,
            "proposal",
            rs ->
                new Inspection(
                    proposal(rs),
                    rs.getString("a_approval_id") == null ? null : approval(rs, "a_")),
            projectId,
            proposalId));
  }

  static Optional<Approval> approvalById(Connection c, String projectId, String approvalId)
      throws SQLException {
    return Optional.ofNullable(
        JdbcRows.one(
            c, APPROVAL_BY_ID, "approval", GovernanceRows::approval, projectId, approvalId));
  }

  private static Approval approval(ResultSet rs) throws SQLException {
    return approval(rs, "");
  }

  /** An approval from the columns whose labels are its column names after {@code prefix}. */
  private static Approval approval(ResultSet rs, String prefix) throws SQLException {
    String decision = rs.getString(prefix + "decision");
    long decidedAt = rs.getLong(prefix + "decided_at_ms");
    Long decidedAtMs = rs.wasNull() ? null : decidedAt;
    return new Approval(
        rs.getString(prefix + "approval_id"),
        rs.getString(prefix + "proposal_id"),
        rs.getString(prefix + "project_id"),
        new Sha256Digest(rs.getString(prefix + "action_digest")),
        rs.getString(prefix + "proposed_by"),
        ProposalState.fromWire(rs.getString(prefix + "state")),
        rs.getString(prefix + "decision_id"),
        decision == null ? null : Decision.fromWire(decision),
        rs.getString(prefix + "decided_by"),
        decidedAtMs,
        rs.getLong(prefix + "created_at_ms"));
  }

  /**
   * Decides a pending approval unless the decision id is already used in the Project. A racing use
   * of the same id on another approval is caught by the unique index instead.
   */
  private static final String DECIDE_APPROVAL =
      """
      UPDATE plugin_package_approvals
      SET state = ?, decision_id = ?, decision = ?, decided_by = ?, decided_at_ms = ?
      WHERE project_id = ? AND approval_id = ? AND state = 'pending'
        AND NOT EXISTS (SELECT 1 FROM plugin_package_approvals d
                        WHERE d.project_id = ? AND d.decision_id = ?)
      """;

  /** False if nothing was decided: not pending, or the decision id is taken. */
  static boolean decide(Connection c, DecisionCommand d) throws SQLException {
    return JdbcRows.update(
            c,
            DECIDE_APPROVAL,
            d.decision().resultingState().wireName(),
            d.decisionId(),
            d.decision().wireName(),
            d.decidedBy(),
            d.decidedAtMs(),
            d.projectId(),
            d.approvalId(),
            d.projectId(),
            d.decisionId())
        == 1;
  }

  /** The proposal takes its approval's new state. */
  private static final String FOLLOW_DECISION =
      """
      UPDATE plugin_package_proposals SET state = ?, updated_at_ms = ?
      WHERE project_id = ?
        AND proposal_id = (SELECT proposal_id FROM plugin_package_approvals
                           WHERE project_id = ? AND approval_id = ?)
      """;

  static void followDecision(Connection c, DecisionCommand d) throws SQLException {
    int followed =
        JdbcRows.update(
            c,
            FOLLOW_DECISION,
            d.decision().resultingState().wireName(),
            d.decidedAtMs(),
            d.projectId(),
            d.projectId(),
            d.approvalId());
    if (followed != 1) {
      throw new StoreUnavailableException("approval without its proposal");
    }
  }
}
