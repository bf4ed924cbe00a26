package dev.qinglong.jdbc;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.qinglong.core.quota.BucketReading;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.ReceiptId;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The hot-bucket fast path (docs/stores.md#the-hot-bucket-fast-path): full buckets this process has
 * seen, so that a new receipt id for one is refused (429) without a connection, a statement or the
 * row lock.
 *
 * <p>Why this is exact. In a fixed window a full bucket stays full, with the same receipts, until
 * its window ends on the database clock: the decision never counts into a full window and only
 * restarts one whose end has passed. So from a decision that found the bucket full (count at the
 * limit) at database time {@code now}, with the window ending at {@code end}, every decision until
 * {@code end} that brings a receipt id not in the bucket is a refusal with the same receipts. The
 * entry therefore holds:
 *
 * <ul>
 *   <li>the window's end on the process's monotonic clock ({@link System#nanoTime}, never the wall
 *       clock): the moment the statement was sent plus {@code end - now}, both read on the database
 *       clock. The statement read {@code now} after it was sent, so this comes no later than the
 *       window's end: the entry never outlives the window, whatever the application clock says.
 *       Retry-After is counted down to it;
 *   <li>a hold of at most {@link #DEFAULT_MAX_HOLD} from the moment the statement was sent (and
 *       never past the window's end), after which the next decision asks the database again and
 *       holds the bucket anew. So one statement per second and process answers a hot bucket, and
 *       what the reasoning above does not cover is seen within that second: an operator who moves a
 *       window by hand, processes deciding one bucket with different limits or windows (a rolling
 *       change of {@code qinglong.management-quota.*}), a database clock stepped forward;
 *   <li>a 64-bit hash of every receipt id in the bucket. An id whose hash is there may be a replay
 *       (allowed) or a reused key (409): it goes to the database, which decides exactly. A hash
 *       collision only sends a new id to the database as well, so there are no false refusals;
 *   <li>the default limit and window it was decided with (a decision with other ones goes to the
 *       database) and the effective limit the statement resolved, which the refusal reports.
 * </ul>
 *
 * A bucket read with a count other than the effective limit (above it: someone counts with a higher
 * one, so it may still grow) is never held.
 *
 * <p>Limits as data. The effective limit is the database's (a user's or a Project's revision,
 * resolved by the deciding statement), and an administrator may raise it on another instance at any
 * time, which this cache cannot see. It never refuses under a raised limit, because it only repeats
 * what a statement decided under the limit in force then, for at most {@link #DEFAULT_MAX_HOLD}
 * from the moment that statement was sent, and {@link JdbcManagementQuotaStore#putLimits} does not
 * answer until {@link #DEFAULT_MAX_HOLD} (and a margin for clock-rate differences between hosts)
 * has passed since its revision committed. A statement that did not see the revision was sent
 * before the commit, so its hold has ended by then: every decision that starts after the change is
 * answered, on every instance, under the new limit.
 *
 * <p>Bounded: at most {@link #DEFAULT_MAX_RECEIPTS} receipt hashes (8 bytes each) in all, by
 * Caffeine's weight-based eviction; an entry also expires at its deadline.
 */
final class HotBuckets {
  /** Receipt hashes held in all, over every full bucket: 8 MB. */
  static final long DEFAULT_MAX_RECEIPTS = 1_000_000;

  /** How long a full bucket is held at most before the database is asked again. */
  static final Duration DEFAULT_MAX_HOLD = Duration.ofSeconds(1);

  /**
   * One full bucket: held until, its window's end (monotonic ns), under which limit and window, in
   * which window (its start on the database clock) and with which ids.
   */
  private record Full(
      long holdUntilNanos,
      long windowEndNanos,
      int defaultLimit,
      long windowMs,
      EffectiveLimit limit,
      long windowStartedAtMs,
      long[] sortedIdHashes) {}

  private final LongSupplier nanoTime;
  private final long maxHoldNanos;
  private final Cache<QuotaKey, Full> full;

  HotBuckets(LongSupplier nanoTime, long maxReceipts, Duration maxHold) {
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.maxHoldNanos = maxHold.toNanos();
    this.full =
        Caffeine.newBuilder()
            .ticker(nanoTime::getAsLong)
            // Evictions on the caller's thread: no background task, bounded at every put.
            .executor(Runnable::run)
            .maximumWeight(maxReceipts)
            .weigher((QuotaKey key, Full entry) -> entry.sortedIdHashes.length + 1)
            .expireAfter(
                Expiry.creating(
                    (QuotaKey key, Full entry) ->
                        Duration.ofNanos(Math.max(0, entry.holdUntilNanos - nanoTime.getAsLong()))))
            .build();
  }

  /** The process's monotonic clock, as this cache reads it. */
  long nanoTime() {
    return nanoTime.getAsLong();
  }

  /**
   * A refusal without the database, or null to ask it: the bucket is not held, is held for another
   * default limit or window, its deadline has passed, or {@code receipt} may be in it.
   */
  QuotaDecision.Rejected refuse(
      QuotaKey key, ReceiptId receipt, int defaultLimit, Duration window) {
    Full entry = full.getIfPresent(key);
    if (entry == null
        || entry.defaultLimit != defaultLimit
        || entry.windowMs != window.toMillis()) {
      return null;
    }
    long now = nanoTime.getAsLong();
    if (now - entry.holdUntilNanos >= 0) {
      full.asMap().remove(key, entry);
      return null;
    }
    long leftNanos = entry.windowEndNanos - now;
    if (Arrays.binarySearch(entry.sortedIdHashes, hash(receipt.value())) >= 0) {
      return null;
    }
    long seconds =
        Math.min((leftNanos + 999_999_999L) / 1_000_000_000L, (window.toMillis() + 999) / 1000);
    return new QuotaDecision.Rejected(Math.max(1, seconds), entry.limit, entry.windowStartedAtMs);
  }

  /**
   * Holds the bucket a decision left full: its count is the effective limit the statement resolved
   * and {@code receiptIds} are all its receipt ids (space-separated, as {@link
   * JdbcDialect#decideStatement} returns them).
   *
   * @param sentAtNanos {@link #nanoTime()} read before the statement was sent
   */
  void remember(
      QuotaKey key,
      int defaultLimit,
      Duration window,
      long sentAtNanos,
      BucketReading reading,
      String receiptIds) {
    if (receiptIds == null || reading.consumedCount() != reading.limit().limit()) {
      return;
    }
    long remainingMs = reading.remainingMs(window);
    if (remainingMs <= 0 || remainingMs > window.toMillis()) {
      // A window start in the database's future: not a bucket whose end this process can bound.
      return;
    }
    String[] ids = receiptIds.split(" ");
    if (ids.length != reading.consumedCount()) {
      return;
    }
    long[] hashes = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      hashes[i] = hash(ids[i]);
    }
    Arrays.sort(hashes);
    long windowEnd = sentAtNanos + Duration.ofMillis(remainingMs).toNanos();
    long holdUntil = sentAtNanos + Math.min(maxHoldNanos, windowEnd - sentAtNanos);
    full.put(
        key,
        new Full(
            holdUntil,
            windowEnd,
            defaultLimit,
            window.toMillis(),
            reading.limit(),
            reading.windowStartedAtMs(),
            hashes));
  }

  /** Buckets held now (for tests and metrics). */
  long size() {
    full.cleanUp();
    return full.estimatedSize();
  }

  /**
   * 64-bit FNV-1a over the id's characters, then a finaliser (MurmurHash3's fmix64). Hand-written:
   * a dozen lines, where a hashing library would be a dependency for one call. Any hash is correct
   * here (a collision only asks the database); a good one keeps those trips rare.
   */
  static long hash(String id) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < id.length(); i++) {
      h ^= id.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb93fe1a85ec3L;
    h ^= h >>> 33;
    return h;
  }
}
