package dev.qinglong.sqlite;

import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.AdmissionSnapshot;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.CompletionSnapshot;
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
 * snapshot statement by statement, decides through {@link
 * dev.qinglong.core.modelquota.ModelQuotaRules} and writes the receipts. Every transaction starts
 * with {@code BEGIN IMMEDIATE} (the pool's {@code transaction_mode}), so it holds SQLite's only
 * writer lock from its first statement on: what it read cannot change before it commits, across
 * connections and processes, and no other lock is needed.
 */
final class SqliteModelLifecycle extends ModelLifecycle {
  private final JdbcTransactions jdbc;

  SqliteModelLifecycle(JdbcTransactions jdbc) {
    this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
  }

  @Override
  public AdmissionOutcome admit(AdmissionRequest request) {
    return jdbc.retryingTransaction("model admission", c -> admission(c, request));
  }

  @Override
  public CompletionOutcome complete(CompletionRequest request) {
    return jdbc.retryingTransaction("model completion", c -> completion(c, request));
  }

  @Override
  public WindowUsageReading currentWindowUsage(String projectId) {
    return jdbc.retryingTransaction("window usage read", c -> windowUsage(c, projectId));
  }

  @Override
  protected AdmissionSnapshot readAdmission(Connection c, AdmissionRequest request)
      throws SQLException {
    String project = request.projectId();
    WindowSnapshot current = readWindow(c, project);
    StepRun step = StepRunRows.stepRun(c, project, request.stepRunId()).orElse(null);
    return new AdmissionSnapshot(
        current.nowMs(),
        current.window(),
        current.quota(),
        AdmissionRows.reservationOfInvocation(c, project, request.invocationId()),
        AdmissionRows.startOfInvocation(c, project, request.invocationId()),
        step,
        step == null
            ? null
            : ModelPolicyRows.latestModelPolicy(c, project, step.modelId()).orElse(null),
        AdmissionRows.reservationOfStepRun(c, project, request.stepRunId()),
        current.windowHead(),
        current.settledHead());
  }

  /**
   * Never stale: the transaction has held the write lock since its first read. A StepRun that is no
   * longer ready rejects the admission.
   */
  @Override
  protected AdmissionOutcome writeAdmission(
      Connection c,
      AdmissionRequest request,
      AdmissionSnapshot snapshot,
      AdmissionOutcome.Admitted admitted)
      throws SQLException {
    if (!StepRunRows.start(c, request, admitted.reservation().reservedAtMs())) {
      return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.STEP_RUN_NOT_READY);
    }
    AdmissionRows.RESERVATIONS.insert(c, admitted.reservation());
    AdmissionRows.STARTS.insert(c, admitted.start());
    return admitted;
  }

  @Override
  protected CompletionSnapshot readCompletion(Connection c, CompletionRequest request)
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

  /** Never stale: the transaction has held the write lock since its first read. */
  @Override
  protected CompletionOutcome writeCompletion(
      Connection c,
      CompletionRequest request,
      CompletionSnapshot snapshot,
      CompletionOutcome.Completed completed)
      throws SQLException {
    CompletionRows.COMPLETIONS.insert(c, completed.completion());
    CompletionRows.LEDGER.insert(c, completed.ledgerEntry());
    // The settlement goes before the StepRun ends: the database refuses the reverse.
    CompletionRows.SETTLEMENTS.insert(c, completed.settlement());
    StepRunRows.end(c, completed.reservation(), request.outcome(), snapshot.nowMs());
    return completed;
  }

  /** The database clock, the Project's quota policy, the window they select and its heads. */
  @Override
  protected WindowSnapshot readWindow(Connection c, String projectId) throws SQLException {
    long now = jdbc.nowMs(c);
    ProjectQuotaPolicy quota = ModelPolicyRows.latestQuotaPolicy(c, projectId).orElse(null);
    WindowRef window = WindowRef.containing(projectId, quota, now);
    return new WindowSnapshot(
        now,
        window,
        quota,
        AdmissionRows.windowHead(c, window),
        CompletionRows.windowHead(c, window));
  }
}
