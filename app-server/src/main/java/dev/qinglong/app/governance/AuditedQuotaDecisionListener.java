package dev.qinglong.app.governance;

import dev.qinglong.app.http.AuditLog;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The app's quota decision listener: every decision to {@code metrics}, and each admitted request a
 * shadow limit would have refused as the audit event {@code quota.shadow_rejected} (the Project,
 * the user, the operation, the bucket's count after the request as {@code used}, the shadow limit,
 * and the enforced limit with where it came from); each refusal to the refusal listeners. Never
 * throws.
 */
final class AuditedQuotaDecisionListener implements QuotaDecisionListener {
  private static final Logger log = LoggerFactory.getLogger(AuditedQuotaDecisionListener.class);
  private final QuotaDecisionListener metrics;
  private final List<QuotaDecisionListener> refusals;

  AuditedQuotaDecisionListener(QuotaDecisionListener metrics) {
    this(metrics, List.of());
  }

  /**
   * @param refusals listeners that hear each refusal too (e.g. its webhook event); one that throws
   *     is logged, never the caller's problem
   */
  AuditedQuotaDecisionListener(
      QuotaDecisionListener metrics, List<QuotaDecisionListener> refusals) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.refusals = List.copyOf(refusals);
  }

  @Override
  public void rejected(QuotaKey key, QuotaDecision.Rejected rejected) {
    for (QuotaDecisionListener l : refusals) {
      try {
        l.rejected(key, rejected);
      } catch (RuntimeException e) {
        log.warn("quota.refusal-listener-failed: {}", e.toString());
      }
    }
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
