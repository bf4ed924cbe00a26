package dev.qinglong.jdbc;

import dev.qinglong.core.governance.ActionType;
import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.ApprovalDecision;
import dev.qinglong.core.governance.ApprovalPolicy;
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
import java.util.ArrayList;
import java.util.List;
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
        (project_id, approval_id, proposal_id, action_digest, proposed_by, state, created_at_ms,
         required_approvals)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
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
        a.createdAtMs(),
        a.requiredApprovals());
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

  /** The approval columns {@link #approval} maps, with the prefix {@code a_}. */
  private static final String APPROVAL_COLUMNS =
      """
      a.project_id AS a_project_id, a.approval_id AS a_approval_id,
      a.proposal_id AS a_proposal_id, a.action_digest AS a_action_digest,
      a.proposed_by AS a_proposed_by, a.state AS a_state, a.decision_id AS a_decision_id,
      a.decision AS a_decision, a.decided_by AS a_decided_by,
      a.decided_at_ms AS a_decided_at_ms, a.created_at_ms AS a_created_at_ms,
      a.required_approvals AS a_required_approvals,
      d.decision_id AS d_decision_id, d.decision AS d_decision, d.decided_by AS d_decided_by,
      d.decided_at_ms AS d_decided_at_ms
      """;

  /** Every decision of approval {@code a}, one row each (one row of NULLs if it has none). */
  private static final String DECISIONS_JOIN =
      """
      LEFT JOIN plugin_package_approval_decisions d
        ON d.project_id = a.project_id AND d.approval_id = a.approval_id
      """;

  /** The order decisions are recorded in (and listed). */
  private static final String DECISION_ORDER = "ORDER BY d.decided_at_ms, d.decision_id\n";

  /** An approval with its decisions, in one statement: one row per decision. */
  private static final String APPROVAL_BY_ID =
      "SELECT "
          + APPROVAL_COLUMNS
          + "FROM plugin_package_approvals a\n"
          + DECISIONS_JOIN
          + "WHERE a.project_id = ? AND a.approval_id = ?\n"
          + DECISION_ORDER;

  /**
   * A proposal with the approval it names and the approval's decisions, in one statement (one round
   * trip, one snapshot): one row per decision, the proposal's columns repeated; the approval's
   * columns carry the prefix {@code a_}, the decision's {@code d_}; they are all NULL when the
   * approval is missing (or, for {@code d_}, has no decision).
   */
  private static final String PROPOSAL_WITH_APPROVAL =
      """
      SELECT p.project_id, p.proposal_id, p.approval_id, p.action_ref, p.action_type,
             p.package_name, p.package_version, p.artifact_digest, p.action_digest,
             p.proposed_by, p.state, p.created_at_ms, p.updated_at_ms,
      """
          + APPROVAL_COLUMNS
          + """
          FROM plugin_package_proposals p
          LEFT JOIN plugin_package_approvals a
            ON a.project_id = p.project_id AND a.approval_id = p.approval_id
          """
          + DECISIONS_JOIN
          + "WHERE p.project_id = ? AND p.proposal_id = ?\n"
          + DECISION_ORDER;

  /** One row of a join onto the decisions: the rest of the row, and the decision or null. */
  private record Joined<T>(T head, ApprovalDecision decision) {}

  static Optional<Inspection> proposalWithApproval(
      Connection c, String projectId, String proposalId) throws SQLException {
    List<Joined<Inspection>> rows =
        JdbcRows.all(
            c,
            PROPOSAL_WITH_APPROVAL,
            "proposal",
            rs ->
                new Joined<>(
                    new Inspection(
                        proposal(rs), rs.getString("a_approval_id") == null ? null : approval(rs)),
                    decision(rs)),
            projectId,
            proposalId);
    if (rows.isEmpty()) {
      return Optional.empty();
    }
    Inspection head = rows.get(0).head();
    Approval approval = head.approval();
    return Optional.of(
        new Inspection(head.proposal(), approval == null ? null : withDecisions(approval, rows)));
  }

  static Optional<Approval> approvalById(Connection c, String projectId, String approvalId)
      throws SQLException {
    List<Joined<Approval>> rows =
        JdbcRows.all(
            c,
            APPROVAL_BY_ID,
            "approval",
            rs -> new Joined<>(approval(rs), decision(rs)),
            projectId,
            approvalId);
    if (rows.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(withDecisions(rows.get(0).head(), rows));
  }

  /** {@code a} (read without decisions) with the decisions of {@code rows}, in their order. */
  private static Approval withDecisions(Approval a, List<? extends Joined<?>> rows) {
    List<ApprovalDecision> decisions = new ArrayList<>();
    for (Joined<?> row : rows) {
      if (row.decision() != null) {
        decisions.add(row.decision());
      }
    }
    return a.withDecisions(decisions);
  }

  /** The {@code a_} columns of a row, as an approval without its decisions. */
  private static Approval approval(ResultSet rs) throws SQLException {
    String decision = rs.getString("a_decision");
    long decidedAt = rs.getLong("a_decided_at_ms");
    Long decidedAtMs = rs.wasNull() ? null : decidedAt;
    return new Approval(
        rs.getString("a_approval_id"),
        rs.getString("a_proposal_id"),
        rs.getString("a_project_id"),
        new Sha256Digest(rs.getString("a_action_digest")),
        rs.getString("a_proposed_by"),
        ProposalState.fromWire(rs.getString("a_state")),
        rs.getString("a_decision_id"),
        decision == null ? null : Decision.fromWire(decision),
        rs.getString("a_decided_by"),
        decidedAtMs,
        rs.getLong("a_created_at_ms"),
        rs.getInt("a_required_approvals"),
        List.of());
  }

  /** The {@code d_} columns of a row, or null if the row has no decision. */
  private static ApprovalDecision decision(ResultSet rs) throws SQLException {
    String decisionId = rs.getString("d_decision_id");
    if (decisionId == null) {
      return null;
    }
    return new ApprovalDecision(
        decisionId,
        Decision.fromWire(rs.getString("d_decision")),
        rs.getString("d_decided_by"),
        rs.getLong("d_decided_at_ms"));
  }

  /**
   * Locks the approval if it is pending, changing nothing: on PostgreSQL (READ COMMITTED) a
   * concurrent decision of the same approval waits here until this transaction ends, and then sees
   * it (the WHERE is evaluated again on the committed row); SQLite's write lock is held anyway.
   */
  private static final String LOCK_PENDING =
      """
      UPDATE plugin_package_approvals SET state = state
      WHERE project_id = ? AND approval_id = ? AND state = 'pending'
      """;

  /** False if the approval is absent from the Project or no longer pending. */
  static boolean lockPending(Connection c, DecisionCommand d) throws SQLException {
    return JdbcRows.update(c, LOCK_PENDING, d.projectId(), d.approvalId()) == 1;
  }

  /**
   * Records the decision of a pending approval unless the decider is the proposer (the table's
   * CHECK refuses that too), has decided it already (primary key) or the decision id is used in the
   * Project (unique key): then nothing is inserted.
   */
  private static final String INSERT_DECISION =
      """
      INSERT INTO plugin_package_approval_decisions
        (project_id, approval_id, decision_id, decision, decided_by, proposed_by, decided_at_ms)
      SELECT a.project_id, a.approval_id, ?, ?, ?, a.proposed_by, ?
      FROM plugin_package_approvals a
      WHERE a.project_id = ? AND a.approval_id = ? AND a.state = 'pending'
        AND a.proposed_by <> ?
      ON CONFLICT DO NOTHING
      """;

  /** False if nothing was recorded. */
  static boolean insertDecision(Connection c, DecisionCommand d) throws SQLException {
    return JdbcRows.update(
            c,
            INSERT_DECISION,
            d.decisionId(),
            d.decision().wireName(),
            d.decidedBy(),
            d.decidedAtMs(),
            d.projectId(),
            d.approvalId(),
            d.decidedBy())
        == 1;
  }

  /** Ends a pending approval with the decision just recorded. */
  private static final String END_APPROVAL =
      """
      UPDATE plugin_package_approvals
      SET state = ?, decision_id = ?, decision = ?, decided_by = ?, decided_at_ms = ?
      WHERE project_id = ? AND approval_id = ? AND state = 'pending'
      """;

  /** An approve ends it only as the required_approvals-th recorded approve. */
  private static final String ENOUGH_APPROVES =
      """
        AND required_approvals <= (SELECT count(*) FROM plugin_package_approval_decisions r
                                   WHERE r.project_id = plugin_package_approvals.project_id
                                     AND r.approval_id = plugin_package_approvals.approval_id
                                     AND r.decision = 'approve')
      """;

  /**
   * After {@link #insertDecision}: a reject ends the approval; an approve ends it once the approval
   * has its required number of approves. False if it stays pending.
   */
  static boolean endIfDecided(Connection c, DecisionCommand d) throws SQLException {
    String sql = d.decision() == Decision.REJECT ? END_APPROVAL : END_APPROVAL + ENOUGH_APPROVES;
    return JdbcRows.update(
            c,
            sql,
            d.decision().resultingState().wireName(),
            d.decisionId(),
            d.decision().wireName(),
            d.decidedBy(),
            d.decidedAtMs(),
            d.projectId(),
            d.approvalId())
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

  // --- approval policy revisions ---

  private static final String LATEST_POLICY =
      """
      SELECT project_id, revision, required_approvals, set_by, set_at_ms
      FROM plugin_package_approval_policies
      WHERE project_id = ?
      ORDER BY revision DESC
      LIMIT 1
      """;

  static Optional<ApprovalPolicy> latestPolicy(Connection c, String projectId) throws SQLException {
    return Optional.ofNullable(
        JdbcRows.one(
            c,
            LATEST_POLICY,
            "approval policy",
            rs ->
                new ApprovalPolicy(
                    rs.getString("project_id"),
                    rs.getLong("revision"),
                    rs.getInt("required_approvals"),
                    rs.getString("set_by"),
                    rs.getLong("set_at_ms")),
            projectId));
  }

  /** Appends a revision stamped by the database clock, the expression {@code %s}. */
  private static final String INSERT_POLICY =
      """
      INSERT INTO plugin_package_approval_policies
        (project_id, revision, required_approvals, set_by, set_at_ms)
      VALUES (?, ?, ?, ?, %s)
      """;

  /** {@link #INSERT_POLICY} on the dialect's clock. */
  static String insertPolicy(JdbcDialect dialect) {
    return INSERT_POLICY.formatted(dialect.nowMs());
  }
}
