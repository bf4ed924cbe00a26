package dev.qinglong.jdbc;

import dev.qinglong.core.modelquota.InvocationStart;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.WindowRef;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The admission receipts of {@link JdbcModelQuotaStore} ({@code model_invocation_reservations},
 * {@code model_invocation_starts}): insert-only; a missing row is null.
 */
public final class AdmissionRows {
  private AdmissionRows() {}

  /** {@code model_invocation_reservations}, also bound to PostgreSQL's admission procedure. */
  public static final RecordTable<Reservation> RESERVATIONS =
      RecordTable.of("model_invocation_reservations", Reservation.class);

  public static final RecordTable<InvocationStart> STARTS =
      RecordTable.of("model_invocation_starts", InvocationStart.class);

  static final String BY_INVOCATION = "WHERE project_id = ? AND invocation_id = ?";

  static final String BY_STEP_RUN = "WHERE project_id = ? AND step_run_id = ?";

  public static Reservation reservationOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return RESERVATIONS.first(c, BY_INVOCATION, projectId, invocationId);
  }

  public static Reservation reservationOfStepRun(Connection c, String projectId, String stepRunId)
      throws SQLException {
    return RESERVATIONS.first(c, BY_STEP_RUN, projectId, stepRunId);
  }

  /** The window's latest reservation: one seek down the (project, window, seq) unique index. */
  public static Reservation windowHead(Connection c, WindowRef w) throws SQLException {
    return head(RESERVATIONS, "window_seq", c, w);
  }

  /** The row of {@code table} in window {@code w} with the highest {@code seq}, or null. */
  static <R extends Record> R head(RecordTable<R> table, String seq, Connection c, WindowRef w)
      throws SQLException {
    return table.first(
        c,
        "WHERE project_id = ? AND window_start_ms = ? AND window_ms = ? ORDER BY "
            + seq
            + " DESC LIMIT 1",
        w.projectId(),
        w.windowStartMs(),
        w.windowMs());
  }

  public static InvocationStart startOfInvocation(
      Connection c, String projectId, String invocationId) throws SQLException {
    return STARTS.first(c, BY_INVOCATION, projectId, invocationId);
  }
}
