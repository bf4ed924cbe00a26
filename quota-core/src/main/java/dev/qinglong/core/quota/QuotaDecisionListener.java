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
    /**
     * Admitted, but a shadow limit would have refused it (the count before it was at or above the
     * shadow limit): counted instead of {@link #ALLOWED}, so the outcomes still add up to the
     * decisions.
     */
    SHADOW_REJECTED,
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

  /**
   * An admitted decision a shadow limit would have refused (after {@link #decided} with {@link
   * Outcome#SHADOW_REJECTED}), e.g. for the audit log; nothing by default.
   *
   * @param consumedCount the bucket's count after the decision
   */
  default void shadowRejected(QuotaKey key, int consumedCount, EffectiveLimit limit) {}

  /**
   * A refusal (after {@link #decided} with {@link Outcome#REJECTED}), from the database or from a
   * full bucket held in memory alike, e.g. for the {@code management-quota.rejected} webhook event;
   * nothing by default. Called on the deciding thread: an implementation hands the work off and
   * returns at once.
   */
  default void rejected(QuotaKey key, QuotaDecision.Rejected rejected) {}

  QuotaDecisionListener NONE = (operation, outcome) -> {};
}
