package dev.qinglong.jdbc;

import static dev.qinglong.jdbc.JdbcRows.nullableLong;
import static dev.qinglong.jdbc.JdbcRows.setNullableLong;

import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.modelquota.InvocationStart;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.WindowBudget;
import dev.qinglong.core.modelquota.WindowRef;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The admission receipts of {@link JdbcModelQuotaStore} ({@code model_invocation_reservations},
 * {@code model_invocation_starts}): insert-only. Each statement next to the code that binds and
 * maps it; a missing row is null.
 */
public final class AdmissionRows {
  private AdmissionRows() {}

  /**
   * The columns of {@code model_invocation_reservations} in the order this class maps and binds
   * them.
   */
  public static final List<String> RESERVATION_COLUMNS =
      JdbcRows.columns(
          """
          project_id, invocation_id, step_run_id, run_id, model_id, model_policy_revision,
          quota_policy_revision, window_start_ms, window_ms, budget_max_invocations,
          budget_max_tokens, budget_max_cost_micros, reserved_tokens, reserved_cost_micros,
          window_seq, window_invocations, window_reserved_tokens, window_reserved_cost_micros,
          reserved_at_ms, digest
          """);

  /** The columns of {@code model_invocation_starts} in the order this class maps and binds them. */
  public static final List<String> START_COLUMNS =
      JdbcRows.columns(
          """
          project_id, invocation_id, step_run_id, run_id, model_id, reservation_digest,
          started_at_ms, digest
          """);

  /** The reservation columns {@link #reservation(ResultSet)} maps, without a WHERE clause. */
  private static final String RESERVATIONS =
      """
      SELECT %s FROM model_invocation_reservations
      """
          .formatted(String.join(", ", RESERVATION_COLUMNS));

  /** The reservation in the columns from {@code at} on, in {@link #RESERVATIONS} order. */
  public static Reservation reservation(ResultSet rs, int at) throws SQLException {
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

  public static Reservation reservationOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
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

  public static Reservation reservationOfStepRun(Connection c, String projectId, String stepRunId)
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

  public static Reservation windowHead(Connection c, WindowRef w) throws SQLException {
    return JdbcRows.byWindow(
        c, WINDOW_HEAD_RESERVATION, w, "reservation", rs -> reservation(rs, 1));
  }

  private static final String INSERT_RESERVATION =
      """
      INSERT INTO model_invocation_reservations (%s) VALUES (%s)
      """
          .formatted(
              String.join(", ", RESERVATION_COLUMNS),
              JdbcRows.parameters(RESERVATION_COLUMNS.size()));

  public static void insert(Connection c, Reservation r) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_RESERVATION)) {
      bind(ps, 1, r);
      ps.executeUpdate();
    }
  }

  /**
   * Binds the reservation's columns, in {@link #RESERVATIONS} order, from parameter {@code at} on:
   * for the INSERT here and for a statement that writes it elsewhere (PostgreSQL's admission
   * procedure).
   *
   * @return the index after the last bound parameter
   */
  public static int bind(PreparedStatement ps, int at, Reservation r) throws SQLException {
    int i = at;
    ps.setString(i++, r.projectId());
    ps.setString(i++, r.invocationId());
    ps.setString(i++, r.stepRunId());
    ps.setString(i++, r.runId());
    ps.setString(i++, r.modelId());
    ps.setLong(i++, r.modelPolicyRevision());
    ps.setLong(i++, r.quotaPolicyRevision());
    ps.setLong(i++, r.windowStartMs());
    ps.setLong(i++, r.windowMs());
    setNullableLong(ps, i++, r.budget().maxInvocations());
    setNullableLong(ps, i++, r.budget().maxTokens());
    setNullableLong(ps, i++, r.budget().maxCostMicros());
    ps.setLong(i++, r.reservedTokens());
    setNullableLong(ps, i++, r.reservedCostMicros());
    ps.setLong(i++, r.windowSeq());
    ps.setLong(i++, r.windowInvocations());
    ps.setLong(i++, r.windowReservedTokens());
    ps.setLong(i++, r.windowReservedCostMicros());
    ps.setLong(i++, r.reservedAtMs());
    ps.setString(i++, r.digest().value());
    return i;
  }

  private static final String START_BY_INVOCATION =
      """
      SELECT %s FROM model_invocation_starts WHERE project_id = ? AND invocation_id = ?
      """
          .formatted(String.join(", ", START_COLUMNS));

  public static InvocationStart startOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return JdbcRows.byKey(
        c, START_BY_INVOCATION, projectId, invocationId, "start", rs -> start(rs, 1));
  }

  /** The start in the columns from {@code at} on, in {@link #START_BY_INVOCATION} order. */
  public static InvocationStart start(ResultSet rs, int at) throws SQLException {
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
      INSERT INTO model_invocation_starts (%s) VALUES (%s)
      """
          .formatted(String.join(", ", START_COLUMNS), JdbcRows.parameters(START_COLUMNS.size()));

  public static void insert(Connection c, InvocationStart s) throws SQLException {
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
