package dev.qinglong.app.governance;

import dev.qinglong.app.http.AuditLog;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import java.util.Objects;

/**
 * The app's quota decision listener: every decision to {@code metrics}, and each admitted request a
 * shadow limit would have refused as the audit event {@code quota.shadow_rejected} (the Project,
 * the user, the operation, the bucket's count after the request as {@code used}, the shadow limit,
 * and the enforced limit with where it came from). Never throws.
 */
final class AuditedQuotaDecisionListener implements QuotaDecisionListener {
  private final QuotaDecisionListener metrics;

  AuditedQuotaDecisionListener(QuotaDecisionListener metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public void decided(QuotaOperation operation, Outcome outcome) {
    metrics.decided(operation, outcome);
  }

  @Override
  public void decided(QuotaOperation operation, Outcome outcome, long elapsedNanos) {
    metrics.decided(operation, outcome, elapsedNanos);
  }

  @Override
  public void shadowRejected(QuotaKey key, int consumedCount, EffectiveLimit limit) {
    AuditLog.event("quota.shadow_rejected")
        .with("projectId", key.projectId())
        .with("userId", key.subjectId())
        .with("operation", key.operation().wireName())
        .with("used", consumedCount)
        .with("shadowLimit", limit.shadowLimit())
        .with("limit", limit.limit())
        .with("limitSource", limit.source().wireName())
        .log();
  }
}
