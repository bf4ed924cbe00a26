package dev.qinglong.core.quota;

import java.time.Duration;
import java.util.Optional;

/**
 * A bucket read back, with the database clock, after the deciding statement changed nothing (replay
 * or full window). Adapters share this classification so both stores answer alike.
 *
 * @param hasReceipt whether the receipt id is in the bucket's receipt array, whatever its digest
 * @param sameRequest whether it is there with the request's digest (or as a legacy receipt without
 *     a digest, which matches any): a replay; {@code hasReceipt && !sameRequest} is a reused key
 * @param databaseNowMs the database clock when the row was read
 */
public record BucketReading(
    long windowStartedAtMs,
    int consumedCount,
    boolean hasReceipt,
    boolean sameRequest,
    long databaseNowMs) {

  /**
   * Classifies a statement that updated nothing. A receipt id in the window decides before the
   * count: a replay is allowed and a reused key refused even when the window is full.
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
      return Optional.of(
          sameRequest
              ? new QuotaDecision.Replayed(windowStartedAtMs, consumedCount)
              : new QuotaDecision.KeyReused());
    }
    if (consumedCount >= limit) {
      long remainingMs = Math.min(endsAtMs - databaseNowMs, windowMs);
      long seconds = Math.max(1, (remainingMs + 999) / 1000);
      return Optional.of(new QuotaDecision.Rejected(seconds));
    }
    return Optional.empty();
  }
}
