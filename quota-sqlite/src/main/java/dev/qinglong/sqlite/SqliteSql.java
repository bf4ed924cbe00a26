package dev.qinglong.sqlite;

import dev.qinglong.jdbc.GovernanceSql;
import dev.qinglong.jdbc.ModelQuotaSql;
import dev.qinglong.jdbc.QuotaSql;

/** Every DML statement of the SQLite adapter. DDL lives in {@code db/sqlite} migrations. */
final class SqliteSql {
  private SqliteSql() {}

  /** SQLite's own clock in epoch milliseconds; constant within one statement. */
  private static final String NOW_MS = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

  /**
   * ADR 000 decision in one statement. Parameters: ?1 project, ?2 subject type, ?3 subject id, ?4
   * operation, ?5 receipt id, ?6 window ms, ?7 limit. Returns a row only when the receipt was
   * counted (fresh bucket, reset window or room left); replay and full update nothing.
   */
  static final String CONSUME =
      """
      INSERT INTO plugin_package_management_quota_buckets AS b
        (project_id, subject_type, subject_id, operation,
         window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
      VALUES (?1, ?2, ?3, ?4, %1$s, 1, json_array(?5), %1$s)
      ON CONFLICT (project_id, subject_type, subject_id, operation) DO UPDATE SET
        window_started_at_ms = CASE WHEN b.window_started_at_ms + ?6 <= excluded.updated_at_ms
                                    THEN excluded.window_started_at_ms
                                    ELSE b.window_started_at_ms END,
        consumed_count = CASE WHEN b.window_started_at_ms + ?6 <= excluded.updated_at_ms
                              THEN 1
                              ELSE b.consumed_count + 1 END,
        receipt_ids = CASE WHEN b.window_started_at_ms + ?6 <= excluded.updated_at_ms
                           THEN excluded.receipt_ids
                           ELSE json_insert(b.receipt_ids, '$[#]', ?5) END,
        updated_at_ms = excluded.updated_at_ms
      WHERE b.window_started_at_ms + ?6 <= excluded.updated_at_ms
         OR (b.consumed_count < ?7
             AND NOT EXISTS (SELECT 1 FROM json_each(b.receipt_ids) WHERE value = ?5))
      RETURNING window_started_at_ms, consumed_count
      """
          .formatted(NOW_MS);

  /** The bucket after a statement that changed nothing, with the clock read at the same time. */
  static final String READ_BUCKET =
      """
      SELECT window_started_at_ms, consumed_count,
             EXISTS (SELECT 1 FROM json_each(receipt_ids) WHERE value = ?1) AS has_receipt,
             %s AS now_ms
      FROM plugin_package_management_quota_buckets
      WHERE project_id = ?2 AND subject_type = ?3 AND subject_id = ?4 AND operation = ?5
      """
          .formatted(NOW_MS);

  static final String PERMISSIONS_OF =
      "SELECT permissions FROM project_members WHERE project_id = ? AND user_id = ?";

  static final String REPLACE_MEMBER =
      """
      INSERT INTO project_members (project_id, user_id, permissions, updated_at_ms)
      VALUES (?, ?, ?, %s)
      ON CONFLICT (project_id, user_id) DO UPDATE SET
        permissions = excluded.permissions, updated_at_ms = excluded.updated_at_ms
      """
          .formatted(NOW_MS);

  static final String MEMBERS =
      "SELECT user_id, permissions FROM project_members WHERE project_id = ? ORDER BY user_id";

  static final String INSERT_PROPOSAL =
      """
      INSERT INTO plugin_package_proposals
        (project_id, proposal_id, approval_id, action_ref, action_type, package_name,
         package_version, artifact_digest, action_digest, proposed_by, state,
         created_at_ms, updated_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, action_ref) DO NOTHING
      """;

  static final String INSERT_APPROVAL =
      """
      INSERT INTO plugin_package_approvals
        (project_id, approval_id, proposal_id, action_digest, proposed_by, state, created_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """;

  private static final String PROPOSAL_COLUMNS =
      """
      SELECT project_id, proposal_id, approval_id, action_ref, action_type, package_name,
             package_version, artifact_digest, action_digest, proposed_by, state,
             created_at_ms, updated_at_ms
      FROM plugin_package_proposals
      """;

  static final String PROPOSAL_BY_ID =
      PROPOSAL_COLUMNS + " WHERE project_id = ? AND proposal_id = ?";

  static final String PROPOSAL_BY_REF =
      PROPOSAL_COLUMNS + " WHERE project_id = ? AND action_ref = ?";

  static final String APPROVAL_BY_ID =
      """
      SELECT project_id, approval_id, proposal_id, action_digest, proposed_by, state,
             decision_id, decision, decided_by, decided_at_ms, created_at_ms
      FROM plugin_package_approvals
      WHERE project_id = ? AND approval_id = ?
      """;

  /** Decides a pending approval unless the decision id is already used in the Project. */
  static final String DECIDE_APPROVAL =
      """
      UPDATE plugin_package_approvals
      SET state = ?, decision_id = ?, decision = ?, decided_by = ?, decided_at_ms = ?
      WHERE project_id = ? AND approval_id = ? AND state = 'pending'
        AND NOT EXISTS (SELECT 1 FROM plugin_package_approvals d
                        WHERE d.project_id = ? AND d.decision_id = ?)
      """;

  static final String FOLLOW_DECISION =
      """
      UPDATE plugin_package_proposals SET state = ?, updated_at_ms = ?
      WHERE project_id = ?
        AND proposal_id = (SELECT proposal_id FROM plugin_package_approvals
                           WHERE project_id = ? AND approval_id = ?)
      """;

  static final QuotaSql QUOTA = new QuotaSql(CONSUME, READ_BUCKET);

  static final GovernanceSql GOVERNANCE =
      new GovernanceSql(
          INSERT_PROPOSAL,
          INSERT_APPROVAL,
          PROPOSAL_BY_ID,
          PROPOSAL_BY_REF,
          APPROVAL_BY_ID,
          DECIDE_APPROVAL,
          FOLLOW_DECISION);

  // --- model-invocation quota (optional AI feature, db/sqlite-ai) ---

  static final String NOW = "SELECT " + NOW_MS;

  private static final String MODEL_POLICY_COLUMNS =
      "SELECT project_id, model_id, revision, max_total_tokens, max_cost_micros, created_at_ms"
          + " FROM model_invocation_policies";

  static final String LATEST_MODEL_POLICY =
      MODEL_POLICY_COLUMNS
          + " WHERE project_id = ? AND model_id = ? ORDER BY revision DESC LIMIT 1";

  static final String INSERT_MODEL_POLICY =
      """
      INSERT INTO model_invocation_policies
        (project_id, model_id, revision, max_total_tokens, max_cost_micros, created_at_ms)
      VALUES (?, ?, ?, ?, ?, ?)
      """;

  static final String LATEST_QUOTA_POLICY =
      """
      SELECT project_id, revision, window_ms, max_invocations, max_tokens, max_cost_micros,
             created_at_ms
      FROM model_project_quota_policies
      WHERE project_id = ? ORDER BY revision DESC LIMIT 1
      """;

  static final String INSERT_QUOTA_POLICY =
      """
      INSERT INTO model_project_quota_policies
        (project_id, revision, window_ms, max_invocations, max_tokens, max_cost_micros,
         created_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """;

  static final String INSERT_STEP_RUN =
      """
      INSERT INTO model_step_runs
        (project_id, step_run_id, run_id, model_id, state, invocation_id,
         created_at_ms, updated_at_ms)
      VALUES (?, ?, ?, ?, 'ready', NULL, ?, ?)
      ON CONFLICT (project_id, step_run_id) DO NOTHING
      """;

  static final String STEP_RUN =
      """
      SELECT project_id, step_run_id, run_id, model_id, state, invocation_id,
             created_at_ms, updated_at_ms
      FROM model_step_runs WHERE project_id = ? AND step_run_id = ?
      """;

  /** ready → running, binding the invocation. Parameters: invocation, now, project, step run. */
  static final String START_STEP_RUN =
      """
      UPDATE model_step_runs SET state = 'running', invocation_id = ?, updated_at_ms = ?
      WHERE project_id = ? AND step_run_id = ? AND state = 'ready'
      """;

  /** running → terminal. Parameters: state, now, project, step run, invocation. */
  static final String END_STEP_RUN =
      """
      UPDATE model_step_runs SET state = ?, updated_at_ms = ?
      WHERE project_id = ? AND step_run_id = ? AND state = 'running' AND invocation_id = ?
      """;

  private static final String RESERVATION_COLUMNS =
      """
      SELECT project_id, invocation_id, step_run_id, run_id, model_id, model_policy_revision,
             quota_policy_revision, window_start_ms, window_ms, budget_max_invocations,
             budget_max_tokens, budget_max_cost_micros, reserved_tokens, reserved_cost_micros,
             window_seq, window_invocations, window_reserved_tokens,
             window_reserved_cost_micros, reserved_at_ms, digest
      FROM model_invocation_reservations
      """;

  static final String RESERVATION_BY_INVOCATION =
      RESERVATION_COLUMNS + " WHERE project_id = ? AND invocation_id = ?";

  static final String RESERVATION_BY_STEP_RUN =
      RESERVATION_COLUMNS + " WHERE project_id = ? AND step_run_id = ?";

  /** The window's latest reservation: one seek down the (project, window, seq) unique index. */
  static final String WINDOW_HEAD_RESERVATION =
      RESERVATION_COLUMNS
          + " WHERE project_id = ? AND window_start_ms = ? AND window_ms = ?"
          + " ORDER BY window_seq DESC LIMIT 1";

  static final String INSERT_RESERVATION =
      """
      INSERT INTO model_invocation_reservations
        (project_id, invocation_id, step_run_id, run_id, model_id, model_policy_revision,
         quota_policy_revision, window_start_ms, window_ms, budget_max_invocations,
         budget_max_tokens, budget_max_cost_micros, reserved_tokens, reserved_cost_micros,
         window_seq, window_invocations, window_reserved_tokens,
         window_reserved_cost_micros, reserved_at_ms, digest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """;

  static final String START_BY_INVOCATION =
      """
      SELECT project_id, invocation_id, step_run_id, run_id, model_id, reservation_digest,
             started_at_ms, digest
      FROM model_invocation_starts WHERE project_id = ? AND invocation_id = ?
      """;

  static final String INSERT_START =
      """
      INSERT INTO model_invocation_starts
        (project_id, invocation_id, step_run_id, run_id, model_id, reservation_digest,
         started_at_ms, digest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      """;

  static final String COMPLETION_BY_INVOCATION =
      """
      SELECT project_id, invocation_id, step_run_id, outcome, input_tokens, output_tokens,
             total_tokens, cost_micros, completed_at_ms, digest
      FROM model_invocation_completions WHERE project_id = ? AND invocation_id = ?
      """;

  static final String INSERT_COMPLETION =
      """
      INSERT INTO model_invocation_completions
        (project_id, invocation_id, step_run_id, outcome, input_tokens, output_tokens,
         total_tokens, cost_micros, completed_at_ms, digest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """;

  private static final String LEDGER_COLUMNS =
      """
      SELECT project_id, ledger_seq, invocation_id, step_run_id, run_id, model_id, outcome,
             input_tokens, output_tokens, total_tokens, cost_micros, completion_digest,
             recorded_at_ms, digest
      FROM model_usage_ledger
      """;

  static final String LEDGER_BY_INVOCATION =
      LEDGER_COLUMNS + " WHERE project_id = ? AND invocation_id = ?";

  static final String LEDGER_PAGE =
      LEDGER_COLUMNS + " WHERE project_id = ? AND ledger_seq > ? ORDER BY ledger_seq LIMIT ?";

  static final String LAST_LEDGER_SEQ =
      "SELECT ledger_seq FROM model_usage_ledger WHERE project_id = ?"
          + " ORDER BY ledger_seq DESC LIMIT 1";

  static final String INSERT_LEDGER =
      """
      INSERT INTO model_usage_ledger
        (project_id, ledger_seq, invocation_id, step_run_id, run_id, model_id, outcome,
         input_tokens, output_tokens, total_tokens, cost_micros, completion_digest,
         recorded_at_ms, digest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """;

  private static final String SETTLEMENT_COLUMNS =
      """
      SELECT project_id, invocation_id, window_start_ms, window_ms, reservation_digest,
             completion_digest, settled_tokens, settled_cost_micros, released_tokens,
             released_cost_micros, window_settle_seq, window_released_tokens,
             window_released_cost_micros, settled_at_ms, digest
      FROM model_invocation_settlements
      """;

  static final String SETTLEMENT_BY_INVOCATION =
      SETTLEMENT_COLUMNS + " WHERE project_id = ? AND invocation_id = ?";

  /** The window's latest settlement: one seek down the (project, window, seq) unique index. */
  static final String WINDOW_HEAD_SETTLEMENT =
      SETTLEMENT_COLUMNS
          + " WHERE project_id = ? AND window_start_ms = ? AND window_ms = ?"
          + " ORDER BY window_settle_seq DESC LIMIT 1";

  static final String INSERT_SETTLEMENT =
      """
      INSERT INTO model_invocation_settlements
        (project_id, invocation_id, window_start_ms, window_ms, reservation_digest,
         completion_digest, settled_tokens, settled_cost_micros, released_tokens,
         released_cost_micros, window_settle_seq, window_released_tokens,
         window_released_cost_micros, settled_at_ms, digest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """;

  static final ModelQuotaSql MODEL_QUOTA =
      new ModelQuotaSql(
          NOW,
          LATEST_MODEL_POLICY,
          INSERT_MODEL_POLICY,
          LATEST_QUOTA_POLICY,
          INSERT_QUOTA_POLICY,
          INSERT_STEP_RUN,
          STEP_RUN,
          START_STEP_RUN,
          END_STEP_RUN,
          RESERVATION_BY_INVOCATION,
          RESERVATION_BY_STEP_RUN,
          WINDOW_HEAD_RESERVATION,
          INSERT_RESERVATION,
          START_BY_INVOCATION,
          INSERT_START,
          COMPLETION_BY_INVOCATION,
          INSERT_COMPLETION,
          LEDGER_BY_INVOCATION,
          LEDGER_PAGE,
          LAST_LEDGER_SEQ,
          INSERT_LEDGER,
          SETTLEMENT_BY_INVOCATION,
          WINDOW_HEAD_SETTLEMENT,
          INSERT_SETTLEMENT);
}
