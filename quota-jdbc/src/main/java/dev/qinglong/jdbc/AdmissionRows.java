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

  private static Reservation reservation(ResultSet rs) throws SQLException {
    return new Reservation(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getLong(6),
        rs.getLong(7),
        rs.getLong(8),
        rs.getLong(9),
        new WindowBudget(nullableLong(rs, 10), nullableLong(rs, 11), nullableLong(rs, 12)),
        rs.getLong(13),
        nullableLong(rs, 14),
        rs.getLong(15),
        rs.getLong(16),
        rs.getLong(17),
        rs.getLong(18),
        rs.getLong(19),
        new Sha256Digest(rs.getString(20)));
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
        AdmissionRows::reservation);
  }

  private static final String RESERVATION_BY_STEP_RUN =
      RESERVATIONS + "WHERE project_id = ? AND step_run_id = ?";

  static Reservation reservationOfStepRun(Connection c, String projectId, String stepRunId)
      throws SQLException {
    return JdbcRows.byKey(
        c,
        RESERVATION_BY_STEP_RUN,
        projectId,
        stepRunId,
        "reservation",
        AdmissionRows::reservation);
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
        c, WINDOW_HEAD_RESERVATION, w, "reservation", AdmissionRows::reservation);
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
        c,
        START_BY_INVOCATION,
        projectId,
        invocationId,
        "start",
        rs ->
            new InvocationStart(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                new Sha256Digest(rs.getString(6)),
                rs.getLong(7),
                new Sha256Digest(rs.getString(8))));
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
