package dev.qinglong.jdbc;

import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.WindowUsageReading;

/**
 * The part of {@link ModelQuotaStore} whose statements and concurrency control differ between
 * databases ({@link JdbcDialect#modelLifecycle}): each admission and completion reads one snapshot,
 * lets {@link dev.qinglong.core.modelquota.ModelQuotaRules} decide once and writes its receipts in
 * one atomic step; the window read follows the same database's shape. The rows are mapped and bound
 * once, in {@link AdmissionRows}, {@link CompletionRows}, {@link StepRunRows} and {@link
 * ModelPolicyRows}. The contracts are those of the same-named {@link ModelQuotaStore} methods.
 */
public interface ModelLifecycle {
  AdmissionOutcome admit(AdmissionRequest request);

  CompletionOutcome complete(CompletionRequest request);

  WindowUsageReading currentWindowUsage(String projectId);
}
