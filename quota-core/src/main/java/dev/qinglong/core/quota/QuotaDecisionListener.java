package dev.qinglong.core.quota;

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

  QuotaDecisionListener NONE = (operation, outcome) -> {};
}
