package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.InvocationOutcome;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.StepRun;
import dev.qinglong.core.modelquota.StepRunCreation;
import java.sql.Connection;
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

  // SQLite reads "SELECT … ON CONFLICT" as a join constraint unless the SELECT has a WHERE.
  private static final String INSERT_READY =
      """
      INSERT INTO model_step_runs (%1$s)
      SELECT ?, ?, ?, ?, 'ready', NULL, k.now_ms, k.now_ms FROM (SELECT %2$s AS now_ms) k WHERE true
      ON CONFLICT (project_id, step_run_id) DO NOTHING
      RETURNING %1$s
      """;

  /** The statement of {@link #create} on {@code dialect}'s clock. */
  static String insertReady(JdbcDialect dialect) {
    return INSERT_READY.formatted(String.join(", ", STEP_RUNS.columns()), dialect.nowMs());
  }

  /**
   * A {@code ready} StepRun without invocation, inserted unless it exists, in one statement ({@code
   * insertReady}, run in auto-commit); the stored row is read back only if it existed already.
   */
  static StepRunCreation create(
      Connection c,
      String insertReady,
      String projectId,
      String stepRunId,
      String runId,
      String modelId)
      throws SQLException {
    StepRun inserted = STEP_RUNS.one(c, insertReady, projectId, stepRunId, runId, modelId);
    if (inserted != null) {
      return new StepRunCreation(inserted, true);
    }
    return new StepRunCreation(
        stepRun(c, projectId, stepRunId)
            .orElseThrow(() -> new StoreUnavailableException("step run vanished")),
        false);
  }

  public static Optional<StepRun> stepRun(Connection c, String projectId, String stepRunId)
      throws SQLException {
    return Optional.ofNullable(STEP_RUNS.first(c, AdmissionRows.BY_STEP_RUN, projectId, stepRunId));
  }

  /** {@code ready → running}, binding the invocation; false if the StepRun is not ready. */
  public static boolean start(Connection c, AdmissionRequest r, long now) throws SQLException {
    return JdbcRows.update(
            c,
            """
            UPDATE model_step_runs SET state = 'running', invocation_id = ?, updated_at_ms = ?
            WHERE project_id = ? AND step_run_id = ? AND state = 'ready'
            """,
            r.invocationId(),
            now,
            r.projectId(),
            r.stepRunId())
        == 1;
  }

  /** {@code running →} the outcome's terminal state, for a StepRun running under {@code r}. */
  public static void end(Connection c, Reservation r, InvocationOutcome outcome, long now)
      throws SQLException {
    int ended =
        JdbcRows.update(
            c,
            """
            UPDATE model_step_runs SET state = ?, updated_at_ms = ?
            WHERE project_id = ? AND step_run_id = ? AND state = 'running' AND invocation_id = ?
            """,
            outcome.terminalState().wireName(),
            now,
            r.projectId(),
            r.stepRunId(),
            r.invocationId());
    if (ended != 1) {
      // Checked as running under this invocation in the same transaction. Indicates a bug.
      throw new IllegalStateException("step run changed inside the completion transaction");
    }
  }

  private static final String STALE_RUNNING =
      """
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
    long afterUpdated = first ? Long.MIN_VALUE : afterUpdatedAtMs;
    String afterProject = first ? "" : afterProjectId;
    return STEP_RUNS.all(
        c,
        STALE_RUNNING,
        cutoffMs,
        afterUpdated,
        afterUpdated,
        afterProject,
        afterProject,
        first ? "" : afterStepRunId,
        limit);
  }
}
