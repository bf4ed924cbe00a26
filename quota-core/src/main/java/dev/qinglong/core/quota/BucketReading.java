package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.WireNamed;
import java.time.Duration;

/**
 * The row the single quota decision statement returns (docs/design.md#management-quota): what it
 * decided, and the bucket as it stands after the decision (locked while the statement ran), with
 * the database clock the statement decided on. Adapters share this check so both stores answer
 * alike, and no answer is ever given from a row that disagrees with itself.
 *
 * @param outcome what the statement decided
 * @param windowStartedAtMs the bucket's window start after the decision
 * @param consumedCount the bucket's count after the decision
 * @param receiptCount the length of the bucket's receipt array (must equal the count)
 * @param databaseNowMs the database clock the statement decided on
 * @param limit the limit the statement resolved and decided under
 */
public record BucketReading(
    Outcome outcome,
    long windowStartedAtMs,
    int consumedCount,
    int receiptCount,
    long databaseNowMs,
    EffectiveLimit limit) {
  /** The most a bucket ever counts (the highest limit; the table CHECKs the same range). */
  public static final int MAX_COUNT = 1000;

  /** What the decision statement did; its wire name is what the outcome column holds. */
  public enum Outcome implements WireNamed {
    /** The receipt was counted (a new bucket, a restarted window or one more in it). */
    ALLOWED,
    /** The receipt id was in the window with this request's digest. */
    REPLAYED,
    /** The receipt id was in the window with another request's digest. */
    KEY_REUSED,
    /** The window was full and the receipt id not in it. */
    REJECTED,
    /**
     * The statement found the bucket corrupt (count outside 1..1000, or not the receipt array's
     * length) and changed nothing.
     */
    CORRUPT;

    /**
     * The outcome a statement returned.
     *
     * @throws StoreUnavailableException for anything else (fail closed)
     */
    public static Outcome fromWire(String wireName) {
      return WireNamed.stored(Outcome.class, wireName);
    }
  }

  public BucketReading {
    if (outcome == null) {
      throw new StoreUnavailableException("quota decision returned no outcome");
    }
    if (limit == null) {
      throw new StoreUnavailableException("quota decision returned no limit");
    }
  }

  /**
   * The decision, after checking that the row agrees with it and with itself.
   *
   * @throws StoreUnavailableException if the row is corrupt (count outside 1..1000, or not the
   *     length of the receipt array; an admitted count above {@code limit}) or disagrees with the
   *     outcome (a refusal in an ended window): fail closed, never an allow or a refusal from bad
   *     data
   */
  public QuotaDecision decision(Duration window) {
    int max = limit.limit();
    if (consumedCount < 1 || consumedCount > MAX_COUNT) {
      throw new StoreUnavailableException("corrupt quota bucket: count out of range");
    }
    if (receiptCount != consumedCount) {
      throw new StoreUnavailableException("corrupt quota bucket: receipts do not match the count");
    }
    if (outcome == Outcome.CORRUPT) {
      throw new StoreUnavailableException(
          "corrupt quota bucket: refused by the decision statement");
    }
    if (outcome == Outcome.ALLOWED) {
      if (consumedCount > max) {
        throw new StoreUnavailableException("corrupt quota bucket: count above the limit");
      }
      return new QuotaDecision.Allowed(windowStartedAtMs, consumedCount, databaseNowMs, limit);
    }
    long windowMs = window.toMillis();
    long endsAtMs = windowStartedAtMs + windowMs;
    if (endsAtMs <= databaseNowMs) {
      // The statement restarts an ended window; a refusal from one is not a decision.
      throw new StoreUnavailableException("quota decision refused in an ended window");
    }
    return switch (outcome) {
      case REPLAYED ->
          new QuotaDecision.Replayed(windowStartedAtMs, consumedCount, databaseNowMs, limit);
      case KEY_REUSED -> new QuotaDecision.KeyReused();
      case REJECTED -> {
        if (consumedCount < max) {
          throw new StoreUnavailableException("quota decision refused a window with room left");
        }
        yield new QuotaDecision.Rejected(
            retryAfterSeconds(endsAtMs, windowMs), limit, windowStartedAtMs);
      }
      case ALLOWED, CORRUPT -> throw new IllegalStateException("handled above");
    };
  }

  /** Milliseconds left in the window on the database clock when the statement decided. */
  public long remainingMs(Duration window) {
    return windowStartedAtMs + window.toMillis() - databaseNowMs;
  }

  /** Whole seconds left in the window on the database clock, rounded up, 1 .. one window. */
  private long retryAfterSeconds(long endsAtMs, long windowMs) {
    long remainingMs = Math.min(endsAtMs - databaseNowMs, windowMs);
    return Math.max(1, (remainingMs + 999) / 1000);
  }
}
