package dev.qinglong.core.quota;

/**
 * What a management quota store decided for one (key, receipt). Unavailability is not a decision:
 * stores throw {@link dev.qinglong.core.kernel.StoreUnavailableException} instead, so that no code
 * path can mistake it for an allow.
 */
public sealed interface QuotaDecision {

  /**
   * The receipt was appended; {@code consumedCount} is the bucket's count after it, {@code
   * databaseNowMs} the database clock the deciding statement decided on (what is left of the window
   * is {@code windowStartedAtMs + window - databaseNowMs}, no other clock involved), {@code limit}
   * the limit the statement decided under.
   */
  record Allowed(
      long windowStartedAtMs, int consumedCount, long databaseNowMs, EffectiveLimit limit)
      implements QuotaDecision {
    /** Whether the shadow limit in force would have refused it (it is admitted all the same). */
    public boolean shadowRejected() {
      return limit.shadowRefuses(consumedCount);
    }
  }

  /**
   * The receipt was already in the current window for the same request (same {@link
   * RequestDigest}): allowed, nothing counted again. {@code databaseNowMs} is the database clock
   * the deciding statement decided on, {@code limit} the limit it decided under.
   */
  record Replayed(
      long windowStartedAtMs, int consumedCount, long databaseNowMs, EffectiveLimit limit)
      implements QuotaDecision {}

  /**
   * The receipt id is in the current window for a different request (another {@link
   * RequestDigest}): never an allow, nothing changed or counted.
   */
  record KeyReused() implements QuotaDecision {}

  /**
   * The window is full and the receipt is not in it; nothing changed. {@code retryAfterSeconds} is
   * computed on the database clock, rounded up, at least 1; {@code limit} is the limit the window
   * is full under, {@code windowStartedAtMs} the start of the full window as the deciding statement
   * returned it (what identifies the window, e.g. for a once-per-window notification).
   */
  record Rejected(long retryAfterSeconds, EffectiveLimit limit, long windowStartedAtMs)
      implements QuotaDecision {
    public Rejected {
      if (retryAfterSeconds < 1) {
        throw new IllegalArgumentException("retryAfterSeconds must be >= 1. Indicates a bug.");
      }
    }
  }

  default boolean admitted() {
    return this instanceof Allowed || this instanceof Replayed;
  }
}
