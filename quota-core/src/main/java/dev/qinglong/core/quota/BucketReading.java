package dev.qinglong.core.quota;

import java.time.Duration;
import java.util.Optional;

/**
 * A bucket read back, with the database clock, after the deciding statement changed nothing (replay
 * or full window). Adapters share this classification so both stores answer alike.
 *
 * @param hasReceipt whether the receipt is in the bucket's receipt array
 * @param databaseNowMs the database clock when the row was read
 */
public record BucketReading(
    long windowStartedAtMs, int consumedCount, boolean hasReceipt, long databaseNowMs) {

  /**
   * Classifies a statement that updated nothing.
   *
   * @return the decision, or empty if the bucket changed between the statement and this read (the
   *     window ended, or it is not full and lacks the receipt): the caller must decide again
   */
  public Optional<QuotaDecision> classify(int limit, Duration window) {
    long windowMs = window.toMillis();
    long endsAtMs = windowStartedAtMs + windowMs;
    if (endsAtMs <= databaseNowMs) {
      return Optional.empty();
    }
    if (hasReceipt) {
      return Optional.of(new QuotaDecision.Replayed(windowStartedAtMs, consumedCount));
    }
    if (consumedCount >= limit) {
      long remainingMs = Math.min(endsAtMs - databaseNowMs, windowMs);
      long seconds = Math.max(1, (remainingMs + 999) / 1000);
      return Optional.of(new QuotaDecision.Rejected(seconds));
    }
    return Optional.empty();
  }
}
