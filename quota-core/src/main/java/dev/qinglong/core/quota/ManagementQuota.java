package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.Limited;
import dev.qinglong.core.kernel.RateLimit;
import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** Applies the management quota policy to a store and turns a rejection into an exception. */
public record ManagementQuota(
    ManagementQuotaStore store, ManagementQuotaPolicy policy, QuotaDecisionListener listener) {

  public ManagementQuota {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(listener, "listener");
  }

  /**
   * Consumes one unit of {@code operation} for the user in the Project under {@code receipt}, spent
   * on the request {@code request} digests. When the policy is disabled nothing is stored and the
   * request is admitted.
   *
   * @return the store's decision, {@link QuotaDecision.Allowed} or {@link QuotaDecision.Replayed},
   *     with the operation's {@link RateLimit} after it (none when the policy is disabled)
   * @throws IdempotencyKeyReusedException if the receipt id was spent on another request in the
   *     current window (nothing counted)
   * @throws QuotaExceededException if the window is full; it carries the refusing {@link RateLimit}
   * @throws StoreUnavailableException if the store cannot decide (fail closed)
   */
  public Limited<QuotaDecision> consume(
      String projectId,
      String userId,
      QuotaOperation operation,
      ReceiptId receipt,
      RequestDigest request) {
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(request, "request");
    if (!policy.enabled()) {
      return new Limited<>(
          new QuotaDecision.Allowed(0, 0, 0, EffectiveLimit.defaultLimit(policy.limit(operation))),
          List.of());
    }
    QuotaDecision decision;
    long started = System.nanoTime();
    try {
      decision =
          store.consume(
              QuotaKey.user(projectId, userId, operation),
              receipt,
              request,
              policy.limit(operation),
              policy.window());
    } catch (StoreUnavailableException e) {
      decided(operation, QuotaDecisionListener.Outcome.UNAVAILABLE, started);
      throw e;
    } catch (RuntimeException e) {
      decided(operation, QuotaDecisionListener.Outcome.UNAVAILABLE, started);
      throw new StoreUnavailableException("quota store failed unexpectedly", e);
    }
    if (decision == null) {
      decided(operation, QuotaDecisionListener.Outcome.UNAVAILABLE, started);
      throw new StoreUnavailableException("quota store returned no decision");
    }
    if (decision instanceof QuotaDecision.KeyReused) {
      decided(operation, QuotaDecisionListener.Outcome.KEY_REUSED, started);
      throw new IdempotencyKeyReusedException(
          operation.wireName() + " receipt id already spent on a different request");
    }
    if (decision instanceof QuotaDecision.Rejected rejected) {
      decided(operation, QuotaDecisionListener.Outcome.REJECTED, started);
      QuotaKey bucket = QuotaKey.user(projectId, userId, operation);
      listener.rejected(bucket, rejected);
      throw new QuotaExceededException(
          rejected.retryAfterSeconds(),
          rateLimit(operation, policy.window(), decision),
          bucket,
          rejected.windowStartedAtMs());
    }
    if (decision instanceof QuotaDecision.Allowed allowed && allowed.shadowRejected()) {
      // Admitted: a shadow limit is reported, never enforced.
      decided(operation, QuotaDecisionListener.Outcome.SHADOW_REJECTED, started);
      listener.shadowRejected(
          QuotaKey.user(projectId, userId, operation), allowed.consumedCount(), allowed.limit());
    } else {
      decided(
          operation,
          decision instanceof QuotaDecision.Replayed
              ? QuotaDecisionListener.Outcome.REPLAYED
              : QuotaDecisionListener.Outcome.ALLOWED,
          started);
    }
    return Limited.of(decision, rateLimit(operation, policy.window(), decision));
  }

  /**
   * The rate limit one decision leaves, from the deciding statement's own values only: the limit is
   * the one it resolved and decided under (the user's, the Project's or the default); {@code
   * remaining} is that limit minus the bucket's count as the statement returned it; the reset is,
   * on a refusal, the refusal's own retry time, and on an admitted request the window start plus
   * the window minus the database's now, rounded up and kept within 1..window seconds. No clock of
   * this process is read, so a skewed host clock cannot shift it. Null for a decision that carries
   * none.
   */
  static RateLimit rateLimit(QuotaOperation operation, Duration window, QuotaDecision decision) {
    long windowSeconds = (window.toMillis() + 999) / 1000;
    long windowStart;
    int count;
    long databaseNowMs;
    int limit;
    if (decision instanceof QuotaDecision.Rejected rejected) {
      return new RateLimit(
          operation.wireName(),
          rejected.limit().limit(),
          windowSeconds,
          0,
          rejected.retryAfterSeconds());
    } else if (decision instanceof QuotaDecision.Allowed allowed) {
      windowStart = allowed.windowStartedAtMs();
      count = allowed.consumedCount();
      databaseNowMs = allowed.databaseNowMs();
      limit = allowed.limit().limit();
    } else if (decision instanceof QuotaDecision.Replayed replayed) {
      windowStart = replayed.windowStartedAtMs();
      count = replayed.consumedCount();
      databaseNowMs = replayed.databaseNowMs();
      limit = replayed.limit().limit();
    } else {
      return null;
    }
    long untilEndMs = windowStart + window.toMillis() - databaseNowMs;
    long reset = Math.min(windowSeconds, Math.max(1, (untilEndMs + 999) / 1000));
    return new RateLimit(
        operation.wireName(), limit, windowSeconds, Math.max(0, limit - count), reset);
  }

  private void decided(
      QuotaOperation operation, QuotaDecisionListener.Outcome outcome, long startedNanos) {
    listener.decided(operation, outcome, System.nanoTime() - startedNanos);
  }
}
