package dev.qinglong.core.quota;

import java.time.Duration;

/** Observes every management quota decision, e.g. for metrics. Must not throw. */
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

  /**
   * A decision that admitted ({@link QuotaDecision.Allowed}, {@link QuotaDecision.Replayed}) or
   * refused ({@link QuotaDecision.Rejected}) the request, with the limit and window it was decided
   * against: what a client's rate-limit headers say. Called after {@link #decided}, on the
   * request's thread; not for unavailable or reused-key outcomes. Default: nothing.
   */
  default void limited(
      QuotaOperation operation, int limit, Duration window, QuotaDecision decision) {}

  QuotaDecisionListener NONE = (operation, outcome) -> {};
}
