package dev.qinglong.core.quota;

/**
 * Observes every management quota decision, e.g. for metrics. Must not throw. The rate limit a
 * decision leaves goes back to the caller with the result ({@link ManagementQuota#consume}), not
 * through a listener.
 */
public interface QuotaDecisionListener {

  /** The outcome label of a decision. */
  enum Outcome {
    ALLOWED,
    REPLAYED,
    REJECTED,
    /** The receipt id was reused for a different request (409 idempotency_key_reused). */
    KEY_REUSED,
    UNAVAILABLE
  }

  void decided(QuotaOperation operation, Outcome outcome);

  /**
   * The same decision with how long the store took to decide it ({@link System#nanoTime()}
   * difference, for a latency histogram; never used to decide anything). By default only {@link
   * #decided(QuotaOperation, Outcome)}.
   */
  default void decided(QuotaOperation operation, Outcome outcome, long elapsedNanos) {
    decided(operation, outcome);
  }

  QuotaDecisionListener NONE = (operation, outcome) -> {};
}
