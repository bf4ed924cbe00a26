package dev.qinglong.jdbc;

import static dev.qinglong.jdbc.JdbcRows.nullableLong;
import static dev.qinglong.jdbc.JdbcRows.setNullableLong;

import dev.qinglong.core.ai.InvocationStart;
import dev.qinglong.core.ai.Reservation;
import dev.qinglong.core.ai.WindowBudget;
import dev.qinglong.core.ai.WindowRef;
import dev.qinglong.core.kernel.Sha256Digest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The admission receipts of {@link JdbcModelQuotaStore} ({@code model_invocation_reservations},
 * {@code model_invocation_starts}): insert-only. Each statement next to the code that binds and
 * maps it; a missing row is null.
 */
final class AdmissionRows {
  private AdmissionRows() {}

  /** The reservation columns {@link #reservation(ResultSet)} maps, without a WHERE clause. */
  private static final String RESERVATIONS =
      """
      SELECT project_id, invocation_id, step_run_id, run_id, model_id, model_policy_revision,
             quota_policy_revision, window_start_ms, window_ms, budget_max_invocations,
             budget_max_tokens, budget_max_cost_micros, reserved_tokens, reserved_cost_micros,
             window_seq, window_invocations, window_reserved_tokens,
             window_reserved_cost_micros, reserved_at_ms, digest
      FROM model_invocation_reservations
      """;

  /** The reservation in the columns from {@code at} on, in {@link #RESERVATIONS} order. */
  static Reservation reservation(ResultSet rs, int at) throws SQLException {
    return new Reservation(
        rs.getString(at),
        rs.getString(at + 1),
        rs.getString(at + 2),
        rs.getString(at + 3),
        rs.getString(at + 4),
        rs.getLong(at + 5),
        rs.getLong(at + 6),
        rs.getLong(at + 7),
        rs.getLong(at + 8),
        new WindowBudget(
            nullableLong(rs, at + 9), nullableLong(rs, at + 10), nullableLong(rs, at + 11)),
        rs.getLong(at + 12),
        nullableLong(rs, at + 13),
        rs.getLong(at + 14),
        rs.getLong(at + 15),
        rs.getLong(at + 16),
        rs.getLong(at + 17),
        rs.getLong(at + 18),
        new Sha256Digest(rs.getString(at + 19)));
  }

  private static final String RESERVATION_BY_INVOCATION =
      RESERVATIONS + "WHERE project_id = ? AND invocation_id = ?";

  static Reservation reservationOfInvocation(Connection c, String projectId, String invocationId)
      throws SQLException {
    return JdbcRows.byKey(
        c,
        RESERVATION_BY_INVOCATION,
        projectId,
        invocationId,
        "reservation",
        rs -> reservation(rs, 1));
  }

  private static final String RESERVATION_BY_STEP_RUN =
      RESERVATIONS + "WHERE project_id = ? AND step_run_id = ?";

  static Reservation reservationOfStepRun(Connection c, String projectId, String stepRunId)
      throws SQLException {
    return JdbcRows.byKey(
        c, RESERVATION_BY_STEP_RUN, projectId, stepRunId, "reservation", rs -> reservation(rs, 1));
  }

  /** The window's latest reservation: one seek down the (project, window, seq) unique index. */
  private static final String WINDOW_HEAD_RESERVATION =
      RESERVATIONS
          + """
          WHERE project_id = ? AND window_start_ms = ? AND window_ms = ?
          ORDER BY window_seq DESC LIMIT 1
          """;

  static Reservation windowHead(Connection c, WindowRef w) throws SQLException {
    return JdbcRows.byWindow(
        c, WINDOW_HEAD_RESERVATION, w, "reservation", rs -> reservation(rs, 1));
  }

  private static final String INSERT_RESERVATION =
      """
      INSERT INTO model_invocation_reservations
        (project_id, invocation_id, step_run_id, run_id, model_id, model_policy_revision,
         quota_policy_revision, window_start_ms, window_ms, budget_max_invocations,
         budget_max_tokens, budget_max_cost_micros, reserved_tokens, reserved_cost_micros,
         window_seq, window_invocations, window_reserved_tokens,
         window_reserved_cost_micros, reserved_at_ms, digest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """;

  static void insert(Connection c, Reservation r) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_RESERVATION)) {
      ps.setString(1, r.projectId());
      ps.setString(2, r.invocationId());
      ps.setString(3, r.stepRunId());
      ps.setString(4, r.runId());
      ps.setString(5, r.modelId());
      ps.setLong(6, r.modelPolicyRevision());
      ps.setLong(7, r.quotaPolicyRevision());
      ps.setLong(8, r.windowStartMs());
      ps.setLong(9, r.windowMs());
      setNullableLong(ps, 10, r.budget().maxInvocations());
      setNullableLong(ps, 11, r.budget().maxTokens());
      setNullableLong(ps, 12, r.budget().maxCostMicros());
      ps.setLong(13, r.reservedTokens());
      setNullableLong(ps, 14, r.reservedCostMicros());
      ps.setLong(15, r.windowSeq());
      ps.setLong(16, r.windowInvocations());
      ps.setLong(17, r.windowReservedTokens());
      ps.setLong(18, r.windowReservedCostMicros());
      ps.setLong(19, r.reservedAtMs());
      ps.setString(20, r.digest().value());
      ps.executeUpdate();
    }
  }

  private static final String START_BY_INVOCATION =
      """
      SELECT project_id, invocation_id, step_run_id, run_id, model_id, reservation_digest,
             started_at_ms, digest
      FROM model_invocation_starts WHERE project_id = ? AND invocation_id = ?
      """;

  static InvocationStart startOfInvocation(Connection c, String projectId, String invocationId)
      throws SQLException {
    return JdbcRows.byKey(
        c, START_BY_INVOCATION, projectId, invocationId, "start", rs -> start(rs, 1));
  }

  /** The start in the columns from {@code at} on, in {@link #START_BY_INVOCATION} order. */
  static InvocationStart start(ResultSet rs, int at) throws SQLException {
    return new InvocationStart(
        rs.getString(at),
        rs.getString(at + 1),
        rs.getString(at + 2),
        rs.getString(at + 3),
        rs.getString(at + 4),
        new Sha256Digest(rs.getString(at + 5)),
        rs.getLong(at + 6),
        new Sha256Digest(rs.getString(at + 7)));
  }

  private static final String INSERT_START =
      """
      INSERT INTO model_invocation_starts
        (project_id, invocation_id, step_run_id, run_id, model_id, reservation_digest,
         started_at_ms, digest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      """;

  static void insert(Connection c, InvocationStart s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_START)) {
      ps.setString(1, s.projectId());
      ps.setString(2, s.invocationId());
      ps.setString(3, s.stepRunId());
      ps.setString(4, s.runId());
      ps.setString(5, s.modelId());
      ps.setString(6, s.reservationDigest().value());
      ps.setLong(7, s.startedAtMs());
      ps.setString(8, s.digest().value());
      ps.executeUpdate();
    }
  }
}
