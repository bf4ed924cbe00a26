package dev.qinglong.sqlite;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.AdmissionSnapshot;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.CompletionSnapshot;
import dev.qinglong.core.modelquota.ModelQuotaRules;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.StepRun;
import dev.qinglong.core.modelquota.StepRunCreation;
import dev.qinglong.core.modelquota.WindowRef;
import dev.qinglong.core.modelquota.WindowUsageReading;
import dev.qinglong.jdbc.AdmissionRows;
import dev.qinglong.jdbc.CompletionRows;
import dev.qinglong.jdbc.JdbcRows;
import dev.qinglong.jdbc.JdbcTransactions;
import dev.qinglong.jdbc.ModelLifecycle;
import dev.qinglong.jdbc.ModelPolicyRows;
import dev.qinglong.jdbc.StepRunRows;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * SQLite's model lifecycle: each admission and completion is ONE transaction that reads its
 * snapshot statement by statement, decides through {@link ModelQuotaRules} and writes the receipts.
 * Every transaction starts with {@code BEGIN IMMEDIATE} (the pool's {@code transaction_mode}), so
 * it holds SQLite's only writer lock from its first statement on: what it read cannot change before
 * it commits, across connections and processes, and no other lock is needed.
 */
final class SqliteModelLifecycle implements ModelLifecycle {
  /** A transaction that met a unique constraint is retried this often (never fires here). */
  private static final int ATTEMPTS = 3;

  private final JdbcTransactions jdbc;
  private final SqliteDialect dialect;

  SqliteModelLifecycle(JdbcTransactions jdbc, SqliteDialect dialect) {
    this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
  }

  private <T> T transaction(String operation, JdbcTransactions.Work<T> work) {
    return jdbc.retryingTransaction(operation, ATTEMPTS, Connection.TRANSACTION_NONE, work);
  }

  @Override
  public StepRunCreation createStepRun(
      String projectId, String stepRunId, String runId, String modelId) {
    return transaction(
        "step run create",
        c -> {
          boolean inserted =
              StepRunRows.insertReady(
                  c, projectId, stepRunId, runId, modelId, JdbcRows.nowMs(c, dialect));
          StepRun stored =
              StepRunRows.stepRun(c, projectId, stepRunId)
                  .orElseThrow(() -> new StoreUnavailableException("step run vanished"));
          return new StepRunCreation(stored, inserted);
        });
  }

  @Override
  public AdmissionOutcome admit(AdmissionRequest request) {
    return transaction(
        "model admission",
        c -> {
          AdmissionOutcome outcome = ModelQuotaRules.admit(request, admissionSnapshot(c, request));
          if (outcome instanceof AdmissionOutcome.Admitted admitted) {
            if (!StepRunRows.start(c, request, admitted.reservation().reservedAtMs())) {
              return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.STEP_RUN_NOT_READY);
            }
            AdmissionRows.insert(c, admitted.reservation());
            AdmissionRows.insert(c, admitted.start());
          }
          return outcome;
        });
  }

  private AdmissionSnapshot admissionSnapshot(Connection c, AdmissionRequest request)
      throws SQLException {
    String project = request.projectId();
    long now = JdbcRows.nowMs(c, dialect);
    ProjectQuotaPolicy quota = ModelPolicyRows.latestQuotaPolicy(c, project).orElse(null);
    WindowRef window = WindowRef.containing(project, quota, now);
    StepRun step = StepRunRows.stepRun(c, project, request.stepRunId()).orElse(null);
    return new AdmissionSnapshot(
        now,
        window,
        quota,
        AdmissionRows.reservationOfInvocation(c, project, request.invocationId()),
        AdmissionRows.startOfInvocation(c, project, request.invocationId()),
        step,
        step == null
            ? null
            : ModelPolicyRows.latestModelPolicy(c, project, step.modelId()).orElse(null),
        AdmissionRows.reservationOfStepRun(c, project, request.stepRunId()),
        AdmissionRows.windowHead(c, window),
        CompletionRows.windowHead(c, window));
  }

  @Override
  public CompletionOutcome complete(CompletionRequest request) {
    return transaction(
        "model completion",
        c -> {
          CompletionSnapshot snapshot = completionSnapshot(c, request);
          CompletionOutcome outcome = ModelQuotaRules.complete(request, snapshot);
          if (outcome instanceof CompletionOutcome.Completed done) {
            CompletionRows.insert(c, done.completion());
            CompletionRows.insert(c, done.ledgerEntry());
            // The settlement goes before the StepRun ends: the database refuses the reverse.
            CompletionRows.insert(c, done.settlement());
            StepRunRows.end(c, done.reservation(), request.outcome(), snapshot.nowMs());
          }
          return outcome;
        });
  }

  private CompletionSnapshot completionSnapshot(Connection c, CompletionRequest request)
      throws SQLException {
    String project = request.projectId();
    String invocation = request.invocationId();
    Reservation reservation = AdmissionRows.reservationOfInvocation(c, project, invocation);
    return new CompletionSnapshot(
        JdbcRows.nowMs(c, dialect),
        reservation,
        CompletionRows.completionOfInvocation(c, project, invocation),
        CompletionRows.ledgerEntryOfInvocation(c, project, invocation),
        CompletionRows.settlementOfInvocation(c, project, invocation),
        AdmissionRows.startOfInvocation(c, project, invocation),
        reservation == null
            ? null
            : StepRunRows.stepRun(c, project, reservation.stepRunId()).orElse(null),
        reservation == null ? null : CompletionRows.windowHead(c, reservation.window()),
        CompletionRows.lastLedgerSeq(c, project));
  }

  @Override
  public WindowUsageReading currentWindowUsage(String projectId) {
    return transaction(
        "window usage read",
        c -> {
          long now = JdbcRows.nowMs(c, dialect);
          ProjectQuotaPolicy quota = ModelPolicyRows.latestQuotaPolicy(c, projectId).orElse(null);
          WindowRef window = WindowRef.containing(projectId, quota, now);
          return new WindowUsageReading(
              ModelQuotaRules.usage(
                  window,
                  AdmissionRows.windowHead(c, window),
                  CompletionRows.windowHead(c, window)),
              quota,
              now);
        });
  }
}
