package dev.qinglong.sqlite;

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
import dev.qinglong.core.modelquota.WindowRef;
import dev.qinglong.core.modelquota.WindowUsageReading;
import dev.qinglong.jdbc.AdmissionRows;
import dev.qinglong.jdbc.CompletionRows;
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
  private final JdbcTransactions jdbc;

  SqliteModelLifecycle(JdbcTransactions jdbc) {
    this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
  }

  @Override
  public AdmissionOutcome admit(AdmissionRequest request) {
    return jdbc.retryingTransaction(
        "model admission",
        c -> {
          AdmissionOutcome outcome = ModelQuotaRules.admit(request, admissionSnapshot(c, request));
          if (outcome instanceof AdmissionOutcome.Admitted admitted) {
            if (!StepRunRows.start(c, request, admitted.reservation().reservedAtMs())) {
              return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.STEP_RUN_NOT_READY);
            }
            AdmissionRows.RESERVATIONS.insert(c, admitted.reservation());
            AdmissionRows.STARTS.insert(c, admitted.start());
          }
          return outcome;
        });
  }

  private AdmissionSnapshot admissionSnapshot(Connection c, AdmissionRequest request)
      throws SQLException {
    String project = request.projectId();
    Current current = current(c, project);
    WindowRef window = current.window();
    StepRun step = StepRunRows.stepRun(c, project, request.stepRunId()).orElse(null);
    return new AdmissionSnapshot(
        current.nowMs(),
        window,
        current.quota(),
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
    return jdbc.retryingTransaction(
        "model completion",
        c -> {
          CompletionSnapshot snapshot = completionSnapshot(c, request);
          CompletionOutcome outcome = ModelQuotaRules.complete(request, snapshot);
          if (outcome instanceof CompletionOutcome.Completed done) {
            CompletionRows.COMPLETIONS.insert(c, done.completion());
            CompletionRows.LEDGER.insert(c, done.ledgerEntry());
            // The settlement goes before the StepRun ends: the database refuses the reverse.
            CompletionRows.SETTLEMENTS.insert(c, done.settlement());
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
        jdbc.nowMs(c),
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
    return jdbc.retryingTransaction(
        "window usage read",
        c -> {
          Current current = current(c, projectId);
          WindowRef window = current.window();
          return new WindowUsageReading(
              ModelQuotaRules.usage(
                  window,
                  AdmissionRows.windowHead(c, window),
                  CompletionRows.windowHead(c, window)),
              current.quota(),
              current.nowMs());
        });
  }

  /** The database clock, the Project's quota policy (null: none) and the window they select. */
  private record Current(long nowMs, ProjectQuotaPolicy quota, WindowRef window) {}

  private Current current(Connection c, String projectId) throws SQLException {
    long now = jdbc.nowMs(c);
    ProjectQuotaPolicy quota = ModelPolicyRows.latestQuotaPolicy(c, projectId).orElse(null);
    return new Current(now, quota, WindowRef.containing(projectId, quota, now));
  }
}
