package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.Optional;

/**
 * A bucket read back, with the database clock, after the deciding statement changed nothing (replay
 * or full window). Adapters share this classification so both stores answer alike.
 *
 * @param receiptCount the length of the bucket's receipt array (must equal the count)
 * @param hasReceipt whether the receipt id is in the bucket's receipt array, whatever its digest
 * @param sameRequest whether it is there with the request's digest (or as a legacy receipt without
 *     a digest, which matches any): a replay; {@code hasReceipt && !sameRequest} is a reused key
 * @param databaseNowMs the database clock when the row was read
 */
public record BucketReading(
    long windowStartedAtMs,
    int consumedCount,
    int receiptCount,
    boolean hasReceipt,
    boolean sameRequest,
    long databaseNowMs) {
  /** The most a bucket ever counts (the highest limit; the table CHECKs the same range). */
  public static final int MAX_COUNT = 1000;

  /**
   * Classifies a statement that updated nothing. A receipt id in the window decides before the
   * count: a replay is allowed and a reused key refused even when the window is full.
   *
   * @return the decision, or empty if the bucket changed between the statement and this read (the
   *     window ended, or it is not full and lacks the receipt): the caller must decide again
   * @throws StoreUnavailableException if the row is corrupt (count outside 1..1000, or not the
   *     length of the receipt array): fail closed, never an allow or a refusal from bad data
   */
  public Optional<QuotaDecision> classify(int limit, Duration window) {
    if (consumedCount < 1 || consumedCount > MAX_COUNT) {
      throw new StoreUnavailableException("corrupt quota bucket: count out of range");
    }
    if (receiptCount != consumedCount) {
      throw new StoreUnavailableException("corrupt quota bucket: receipts do not match the count");
    }
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
