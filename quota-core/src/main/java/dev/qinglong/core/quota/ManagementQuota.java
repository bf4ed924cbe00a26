package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.IdempotencyKeyReusedException;
import dev.qinglong.core.kernel.QuotaExceededException;
import dev.qinglong.core.kernel.StoreUnavailableException;
import java.util.Objects;

/** Applies the management quota policy to a store and turns a rejection into an exception. */
public final class ManagementQuota {
  private final ManagementQuotaStore store;
  private final ManagementQuotaPolicy policy;
  private final QuotaDecisionListener listener;

  public ManagementQuota(
      ManagementQuotaStore store, ManagementQuotaPolicy policy, QuotaDecisionListener listener) {
    this.store = Objects.requireNonNull(store, "store");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Consumes one unit of {@code operation} for the user in the Project under {@code receipt}, spent
   * on the request {@code request} digests. When the policy is disabled nothing is stored and the
   * request is admitted.
   *
   * @return the store's decision, {@link QuotaDecision.Allowed} or {@link QuotaDecision.Replayed}
   * @throws IdempotencyKeyReusedException if the receipt id was spent on another request in the
   *     current window (nothing counted)
   * @throws QuotaExceededException if the window is full
   * @throws StoreUnavailableException if the store cannot decide (fail closed)
   */
  public QuotaDecision consume(
      String projectId,
      String userId,
      QuotaOperation operation,
      ReceiptId receipt,
      RequestDigest request) {
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(request, "request");
    if (!policy.enabled()) {
      return new QuotaDecision.Allowed(0, 0, 0);
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
      listener.limited(operation, policy.limit(operation), policy.window(), decision);
      throw new QuotaExceededException(rejected.retryAfterSeconds());
    }
    decided(
        operation,
        decision instanceof QuotaDecision.Replayed
            ? QuotaDecisionListener.Outcome.REPLAYED
            : QuotaDecisionListener.Outcome.ALLOWED,
        started);
    listener.limited(operation, policy.limit(operation), policy.window(), decision);
    return decision;
  }

  private void decided(
      QuotaOperation operation, QuotaDecisionListener.Outcome outcome, long startedNanos) {
    listener.decided(operation, outcome, System.nanoTime() - startedNanos);
  }

  public ManagementQuotaPolicy policy() {
    return policy;
  }
}
