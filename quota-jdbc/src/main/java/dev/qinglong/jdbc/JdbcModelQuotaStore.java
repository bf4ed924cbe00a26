package dev.qinglong.jdbc;

import dev.qinglong.core.modelquota.Admission;
import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.InvocationStart;
import dev.qinglong.core.modelquota.ModelInvocationPolicy;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.StepRun;
import dev.qinglong.core.modelquota.StepRunCreation;
import dev.qinglong.core.modelquota.UsageLedgerEntry;
import dev.qinglong.core.modelquota.WindowUsageReading;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import javax.sql.DataSource;

/**
 * {@link ModelQuotaStore} over JDBC: the statements both databases run (policies, StepRun reads,
 * the invocation read, the ledger, the recovery sweep's scan) here; admission, completion, StepRun
 * creation and the window read through the dialect's {@link ModelLifecycle}, which reads one
 * snapshot, lets {@link dev.qinglong.core.modelquota.ModelQuotaRules} decide once and writes its
 * receipts atomically. The clock is the database's own ({@link JdbcDialect#nowMs}).
 *
 * <p>Policy writes that race (two writers of the next revision) meet a unique constraint (SQLState
 * {@code 23505}); the transaction is then retried and sees the winner. They may run over a login of
 * their own: on PostgreSQL the runtime's login may read policies but not write them, so the runtime
 * cannot raise the budget that fences it.
 */
public final class JdbcModelQuotaStore implements ModelQuotaStore {
  private final JdbcTransactions jdbc;
  private final JdbcTransactions policyWrites;
  private final ModelLifecycle lifecycle;
  private final String insertReady;

  /** Everything, policy writes included, over {@code dataSource}. */
  public JdbcModelQuotaStore(DataSource dataSource, JdbcDialect dialect) {
    this(dataSource, dataSource, dialect);
  }

  /**
   * @param dataSource admission, completion and every read
   * @param policyWrites only the policy writes
   */
  public JdbcModelQuotaStore(DataSource dataSource, DataSource policyWrites, JdbcDialect dialect) {
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.policyWrites = new JdbcTransactions(policyWrites, dialect);
    this.lifecycle = Objects.requireNonNull(dialect.modelLifecycle(jdbc), "modelLifecycle");
    this.insertReady = StepRunRows.insertReady(dialect);
  }

  private <T> T transaction(String operation, JdbcTransactions.Work<T> work) {
    return jdbc.retryingTransaction(operation, work);
  }

  @Override
  public ModelInvocationPolicy putModelPolicy(
      String projectId, String modelId, long maxTotalTokens, Long maxCostMicros) {
    return putRevision(
        "model policy write",
        ModelPolicyRows.MODEL_POLICIES,
        c -> ModelPolicyRows.latestModelPolicy(c, projectId, modelId),
        latest -> latest.sameLimits(maxTotalTokens, maxCostMicros),
        ModelInvocationPolicy::revision,
        (revision, nowMs) ->
            new ModelInvocationPolicy(
                projectId, modelId, revision, maxTotalTokens, maxCostMicros, nowMs));
  }

  /** A policy of revision {@code revision}, created at {@code nowMs}. */
  private interface Revision<P> {
    P create(long revision, long nowMs);
  }

  /**
   * Appends the next revision of a policy ({@code next}, on the database clock) unless the latest
   * one already has the same limits; returns the one in force.
   */
  private <P extends Record> P putRevision(
      String operation,
      RecordTable<P> table,
      JdbcTransactions.Work<Optional<P>> latestOf,
      Predicate<P> sameLimits,
      ToLongFunction<P> revisionOf,
      Revision<P> next) {
    return policyWrites.retryingTransaction(
        operation,
        c -> {
          Optional<P> latest = latestOf.run(c);
          if (latest.isPresent() && sameLimits.test(latest.get())) {
            return latest.get();
          }
          P created =
              next.create(latest.map(p -> revisionOf.applyAsLong(p) + 1).orElse(1L), jdbc.nowMs(c));
          table.insert(c, created);
          return created;
        });
  }

  @Override
  public Optional<ModelInvocationPolicy> modelPolicy(String projectId, String modelId) {
    return transaction(
        "model policy read", c -> ModelPolicyRows.latestModelPolicy(c, projectId, modelId));
  }

  @Override
  public ProjectQuotaPolicy putProjectQuota(
      String projectId,
      QuotaWindow window,
      long maxInvocations,
      long maxTokens,
      Long maxCostMicros) {
    return putRevision(
        "project quota write",
        ModelPolicyRows.QUOTA_POLICIES,
        c -> ModelPolicyRows.latestQuotaPolicy(c, projectId),
        latest -> latest.sameLimits(window, maxInvocations, maxTokens, maxCostMicros),
        ProjectQuotaPolicy::revision,
        (revision, nowMs) ->
            new ProjectQuotaPolicy(
                projectId, revision, window, maxInvocations, maxTokens, maxCostMicros, nowMs));
  }

  @Override
  public Optional<ProjectQuotaPolicy> projectQuota(String projectId) {
    return transaction("project quota read", c -> ModelPolicyRows.latestQuotaPolicy(c, projectId));
  }

  /** One statement in auto-commit; the stored row is read back only if it existed already. */
  @Override
  public StepRunCreation createStepRun(
      String projectId, String stepRunId, String runId, String modelId) {
    return jdbc.autoCommit(
        "step run create",
        c -> StepRunRows.create(c, insertReady, projectId, stepRunId, runId, modelId));
  }

  @Override
  public Optional<StepRun> stepRun(String projectId, String stepRunId) {
    return transaction("step run read", c -> StepRunRows.stepRun(c, projectId, stepRunId));
  }

  @Override
  public Optional<Admission> invocation(String projectId, String invocationId) {
    return transaction(
        "invocation read",
        c -> {
          Reservation r = AdmissionRows.reservationOfInvocation(c, projectId, invocationId);
          if (r == null) {
            return Optional.empty();
          }
          InvocationStart s = AdmissionRows.startOfInvocation(c, projectId, invocationId);
          return Optional.of(new Admission(r, s, false));
        });
  }

  @Override
  public AdmissionOutcome admit(AdmissionRequest request) {
    return lifecycle.admit(request);
  }

  @Override
  public CompletionOutcome complete(CompletionRequest request) {
    return lifecycle.complete(request);
  }

  @Override
  public WindowUsageReading currentWindowUsage(String projectId) {
    return lifecycle.currentWindowUsage(projectId);
  }

  @Override
  public List<UsageLedgerEntry> ledger(String projectId, long afterSeq, int limit) {
    if (limit < 1 || limit > 501) {
      throw new IllegalArgumentException("limit must be 1..501. Indicates a bug.");
    }
    return transaction(
        "ledger read", c -> CompletionRows.ledgerPage(c, projectId, afterSeq, limit));
  }

  @Override
  public List<StepRun> staleRunning(
      long olderThanMs,
      long afterUpdatedAtMs,
      String afterProjectId,
      String afterStepRunId,
      int limit) {
    if (limit < 1 || limit > 500 || olderThanMs < 0) {
      throw new IllegalArgumentException("limit must be 1..500, age >= 0. Indicates a bug.");
    }
    return transaction(
        "stale step run read",
        c ->
            StepRunRows.staleRunning(
                c,
                jdbc.nowMs(c) - olderThanMs,
                afterUpdatedAtMs,
                afterProjectId,
                afterStepRunId,
                limit));
  }
}
