package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.InvocationOutcome;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.StepRun;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The StepRun rows of {@link JdbcModelQuotaStore} ({@code model_step_runs}): {@code ready → running
 * →} a terminal state, the only rows the store ever updates. Each statement next to the code that
 * binds and maps it.
 */
public final class StepRunRows {
  private StepRunRows() {}

  public static final RecordTable<StepRun> STEP_RUNS =
      RecordTable.of("model_step_runs", StepRun.class);

  private static final String INSERT_STEP_RUN =
      """
      INSERT INTO model_step_runs
        (project_id, step_run_id, run_id, model_id, state, invocation_id,
         created_at_ms, updated_at_ms)
      VALUES (?, ?, ?, ?, 'ready', NULL, ?, ?)
      ON CONFLICT (project_id, step_run_id) DO NOTHING
      """;

  /** A {@code ready} StepRun without invocation; false if the StepRun exists (nothing inserted). */
  public static boolean insertReady(
      Connection c, String projectId, String stepRunId, String runId, String modelId, long now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_STEP_RUN)) {
      ps.setString(1, projectId);
      ps.setString(2, stepRunId);
      ps.setString(3, runId);
      ps.setString(4, modelId);
      ps.setLong(5, now);
      ps.setLong(6, now);
      return ps.executeUpdate() == 1;
    }
  }

  public static Optional<StepRun> stepRun(Connection c, String projectId, String stepRunId)
      throws SQLException {
    return Optional.ofNullable(
        STEP_RUNS.byKey(c, "WHERE project_id = ? AND step_run_id = ?", projectId, stepRunId));
  }

  /**
   * The StepRun just inserted or found to exist.
   *
   * @throws StoreUnavailableException if it is not there
   */
  public static StepRun existing(Connection c, String projectId, String stepRunId)
      throws SQLException {
    return stepRun(c, projectId, stepRunId)
        .orElseThrow(() -> new StoreUnavailableException("step run vanished"));
  }

  private static final String START_STEP_RUN =
      """
      UPDATE model_step_runs SET state = 'running', invocation_id = ?, updated_at_ms = ?
      WHERE project_id = ? AND step_run_id = ? AND state = 'ready'
      """;

  /** {@code ready → running}, binding the invocation; false if the StepRun is not ready. */
  public static boolean start(Connection c, AdmissionRequest r, long now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(START_STEP_RUN)) {
      ps.setString(1, r.invocationId());
      ps.setLong(2, now);
      ps.setString(3, r.projectId());
      ps.setString(4, r.stepRunId());
      return ps.executeUpdate() == 1;
    }
  }

  private static final String END_STEP_RUN =
      """
      UPDATE model_step_runs SET state = ?, updated_at_ms = ?
      WHERE project_id = ? AND step_run_id = ? AND state = 'running' AND invocation_id = ?
      """;

  /** {@code running →} the outcome's terminal state, for a StepRun running under {@code r}. */
  public static void end(Connection c, Reservation r, InvocationOutcome outcome, long now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(END_STEP_RUN)) {
      ps.setString(1, outcome.terminalState().wireName());
      ps.setLong(2, now);
      ps.setString(3, r.projectId());
      ps.setString(4, r.stepRunId());
      ps.setString(5, r.invocationId());
      if (ps.executeUpdate() != 1) {
        // Checked as running under this invocation in the same transaction. Indicates a bug.
        throw new IllegalStateException("step run changed inside the completion transaction");
      }
    }
  }

  private static final String STALE_RUNNING =
      STEP_RUNS.select()
          + """
      WHERE state = 'running' AND updated_at_ms <= ?
        AND (updated_at_ms > ?
             OR (updated_at_ms = ? AND (project_id > ?
                                        OR (project_id = ? AND step_run_id > ?))))
      ORDER BY updated_at_ms, project_id, step_run_id
      LIMIT ?
      """;

  /**
   * Running StepRuns last changed at or before {@code cutoffMs}, oldest first, after the given key
   * ({@code afterProjectId == null}: from the start).
   */
  public static List<StepRun> staleRunning(
      Connection c,
      long cutoffMs,
      long afterUpdatedAtMs,
      String afterProjectId,
      String afterStepRunId,
      int limit)
      throws SQLException {
    boolean first = afterProjectId == null;
    try (PreparedStatement ps = c.prepareStatement(STALE_RUNNING)) {
      ps.setLong(1, cutoffMs);
      ps.setLong(2, first ? Long.MIN_VALUE : afterUpdatedAtMs);
      ps.setLong(3, first ? Long.MIN_VALUE : afterUpdatedAtMs);
      ps.setString(4, first ? "" : afterProjectId);
      ps.setString(5, first ? "" : afterProjectId);
      ps.setString(6, first ? "" : afterStepRunId);
      ps.setInt(7, limit);
      return STEP_RUNS.all(ps);
    }
  }
}
