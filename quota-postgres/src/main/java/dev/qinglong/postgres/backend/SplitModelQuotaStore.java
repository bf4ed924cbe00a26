package dev.qinglong.postgres.backend;

import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.ModelInvocationPolicy;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.StepRun;
import dev.qinglong.core.modelquota.StepRunCreation;
import dev.qinglong.core.modelquota.UsageLedgerEntry;
import dev.qinglong.core.modelquota.WindowUsageReading;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Writes policy revisions through the administrator's login ({@code ql3_admin}), everything else
 * through the runtime's ({@code ql3_runtime}), which may read policies but not write them: the
 * runtime must not be able to raise the budget that fences it (migration {@code
 * db/postgres-ai/V2}).
 */
public final class SplitModelQuotaStore implements ModelQuotaStore {
  private final ModelQuotaStore runtime;
  private final ModelQuotaStore policyWrites;

  /**
   * @param runtime the store over the runtime's login: admission, completion, reads
   * @param policyWrites the store over the administrator's login: only policy writes
   */
  public SplitModelQuotaStore(ModelQuotaStore runtime, ModelQuotaStore policyWrites) {
    this.runtime = Objects.requireNonNull(runtime, "runtime");
    this.policyWrites = Objects.requireNonNull(policyWrites, "policyWrites");
  }

  @Override
  public ModelInvocationPolicy putModelPolicy(
      String projectId, String modelId, long maxTotalTokens, Long maxCostMicros) {
    return policyWrites.putModelPolicy(projectId, modelId, maxTotalTokens, maxCostMicros);
  }

  @Override
  public Optional<ModelInvocationPolicy> modelPolicy(String projectId, String modelId) {
    return runtime.modelPolicy(projectId, modelId);
  }

  @Override
  public ProjectQuotaPolicy putProjectQuota(
      String projectId,
      QuotaWindow window,
      long maxInvocations,
      long maxTokens,
      Long maxCostMicros) {
    return policyWrites.putProjectQuota(
        projectId, window, maxInvocations, maxTokens, maxCostMicros);
  }

  @Override
  public Optional<ProjectQuotaPolicy> projectQuota(String projectId) {
    return runtime.projectQuota(projectId);
  }

  @Override
  public StepRunCreation createStepRun(
      String projectId, String stepRunId, String runId, String modelId) {
    return runtime.createStepRun(projectId, stepRunId, runId, modelId);
  }

  @Override
  public Optional<StepRun> stepRun(String projectId, String stepRunId) {
    return runtime.stepRun(projectId, stepRunId);
  }

  @Override
  public Optional<dev.qinglong.core.modelquota.Admission> invocation(
      String projectId, String invocationId) {
    return runtime.invocation(projectId, invocationId);
  }

  @Override
  public AdmissionOutcome admit(AdmissionRequest request) {
    return runtime.admit(request);
  }

  @Override
  public CompletionOutcome complete(CompletionRequest request) {
    return runtime.complete(request);
  }

  @Override
  public WindowUsageReading currentWindowUsage(String projectId) {
    return runtime.currentWindowUsage(projectId);
  }

  @Override
  public List<UsageLedgerEntry> ledger(String projectId, long afterSeq, int limit) {
    return runtime.ledger(projectId, afterSeq, limit);
  }

  @Override
  public List<StepRun> staleRunning(
      long olderThanMs,
      long afterUpdatedAtMs,
      String afterProjectId,
      String afterStepRunId,
      int limit) {
    return runtime.staleRunning(
        olderThanMs, afterUpdatedAtMs, afterProjectId, afterStepRunId, limit);
  }
}
