package dev.qinglong.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.quota.BucketReading;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.LimitSource;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HotBucketsTest {
  private static final Duration MINUTE = Duration.ofSeconds(60);
  private static final QuotaKey KEY = QuotaKey.user("prj", "alice", QuotaOperation.INSPECT);

  /** A monotonic clock the test moves; its origin is arbitrary, like System.nanoTime's. */
  private final AtomicLong nanos = new AtomicLong(-TimeUnit.DAYS.toNanos(10_000));

  /** Holds up to 30 s, longer than the windows left below: the window's end bounds them. */
  private HotBuckets buckets(long maxReceipts) {
    return new HotBuckets(nanos::get, maxReceipts, Duration.ofSeconds(30));
  }

  /** The limit the statement resolved for {@link #full}: the default 2, no policy. */
  private static final EffectiveLimit TWO = EffectiveLimit.defaultLimit(2);

  /** A full bucket of limit 2 whose window, on the database clock, has {@code leftMs} to run. */
  private static BucketReading full(long leftMs) {
    return counted(leftMs, TWO);
  }

  /** A bucket of count 2 the statement decided under {@code limit}. */
  private static BucketReading counted(long leftMs, EffectiveLimit limit) {
    long now = 5_000_000;
    return new BucketReading(
        BucketReading.Outcome.REJECTED, now - (MINUTE.toMillis() - leftMs), 2, 2, now, limit);
  }

  /** The window start of {@link #counted} with {@code leftMs} left: what a refusal carries. */
  private static long start(long leftMs) {
    return 5_000_000 - (MINUTE.toMillis() - leftMs);
  }

  private static ReceiptId r(String id) {
    return new ReceiptId(id);
  }

  @Test
  void refusesNewIdsUntilTheDatabaseWindowEndsMeasuredFromBeforeTheStatement() {
    HotBuckets hot = buckets(HotBuckets.DEFAULT_MAX_RECEIPTS);
    long sent = nanos.get();
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(300)); // the statement's round trip
    hot.remember(KEY, 2, MINUTE, sent, full(10_000), "a b");

    assertThat(hot.refuse(KEY, r("c"), 2, MINUTE))
        .isEqualTo(new QuotaDecision.Rejected(10, TWO, start(10_000)));
    nanos.set(sent + TimeUnit.MILLISECONDS.toNanos(9_001));
    assertThat(hot.refuse(KEY, r("c"), 2, MINUTE))
        .isEqualTo(new QuotaDecision.Rejected(1, TWO, start(10_000)));
    // 10 s after the statement was sent, not after its answer came: the window may have ended.
    nanos.set(sent + TimeUnit.MILLISECONDS.toNanos(10_000));
    assertThat(hot.refuse(KEY, r("c"), 2, MINUTE)).isNull();
    assertThat(hot.size()).isZero();
  }

  @Test
  void aBucketIsHeldAtMostTheLongestHoldThenAskedAgain() {
    HotBuckets hot =
        new HotBuckets(nanos::get, HotBuckets.DEFAULT_MAX_RECEIPTS, HotBuckets.DEFAULT_MAX_HOLD);
    long sent = nanos.get();
    hot.remember(KEY, 2, MINUTE, sent, full(30_000), "a b");
    nanos.set(sent + TimeUnit.MILLISECONDS.toNanos(999));
    // Retry-After still counts down to the window's end, not to the end of the hold.
    assertThat(hot.refuse(KEY, r("c"), 2, MINUTE))
        .isEqualTo(new QuotaDecision.Rejected(30, TWO, start(30_000)));
    nanos.set(sent + TimeUnit.MILLISECONDS.toNanos(1_000));
    assertThat(hot.refuse(KEY, r("c"), 2, MINUTE)).isNull();
  }

  @Test
  void aRefusalReportsTheLimitTheStatementResolvedNotTheDefault() {
    HotBuckets hot = buckets(HotBuckets.DEFAULT_MAX_RECEIPTS);
    EffectiveLimit users = new EffectiveLimit(2, LimitSource.USER, null);
    // The default sent was 30; the user's override of 2 is what filled the bucket.
    hot.remember(KEY, 30, MINUTE, nanos.get(), counted(30_000, users), "a b");
    assertThat(hot.refuse(KEY, r("c"), 30, MINUTE))
        .isEqualTo(new QuotaDecision.Rejected(30, users, start(30_000)));
    // Another default (a rolling configuration change) goes to the database.
    assertThat(hot.refuse(KEY, r("c"), 2, MINUTE)).isNull();
  }

  @Test
  void anIdThatMayBeInTheBucketGoesToTheDatabase() {
    HotBuckets hot = buckets(HotBuckets.DEFAULT_MAX_RECEIPTS);
    hot.remember(KEY, 2, MINUTE, nanos.get(), full(30_000), "a b");
    assertThat(hot.refuse(KEY, r("a"), 2, MINUTE)).isNull();
    assertThat(hot.refuse(KEY, r("b"), 2, MINUTE)).isNull();
    assertThat(hot.refuse(KEY, r("c"), 2, MINUTE)).isNotNull();
  }

  @Test
  void anotherLimitWindowOrBucketIsNotTheHeldOne() {
    HotBuckets hot = buckets(HotBuckets.DEFAULT_MAX_RECEIPTS);
    hot.remember(KEY, 2, MINUTE, nanos.get(), full(30_000), "a b");
    assertThat(hot.refuse(KEY, r("c"), 3, MINUTE)).isNull();
    assertThat(hot.refuse(KEY, r("c"), 2, Duration.ofSeconds(61))).isNull();
    QuotaKey other = QuotaKey.user("prj", "bob", QuotaOperation.INSPECT);
    assertThat(hot.refuse(other, r("c"), 2, MINUTE)).isNull();
  }

  @Test
  void holdsOnlyABucketWhoseCountIsTheLimitAndWhoseEndItCanBound() {
    HotBuckets hot = buckets(HotBuckets.DEFAULT_MAX_RECEIPTS);
    // Count above the limit the statement resolved: another process counts with a higher one.
    hot.remember(
        KEY, 1, MINUTE, nanos.get(), counted(30_000, EffectiveLimit.defaultLimit(1)), "a b");
    // Count below it: a Project's limit of 3 was in force, the bucket is not full.
    hot.remember(
        KEY,
        2,
        MINUTE,
        nanos.get(),
        counted(30_000, new EffectiveLimit(3, LimitSource.PROJECT, null)),
        "a b");
    // Receipt ids that do not match the count.
    hot.remember(KEY, 2, MINUTE, nanos.get(), full(30_000), "a");
    // A window start in the database's future (more than one window left).
    hot.remember(KEY, 2, MINUTE, nanos.get(), full(61_000), "a b");
    // No ids: the bucket was not full after the statement.
    hot.remember(KEY, 2, MINUTE, nanos.get(), full(30_000), null);
    assertThat(hot.size()).isZero();
  }

  @Test
  void memoryIsBoundedByTheReceiptsHeld() {
    HotBuckets hot = buckets(10);
    for (int i = 0; i < 100; i++) {
      QuotaKey key = QuotaKey.user("prj", "user-" + i, QuotaOperation.INSPECT);
      hot.remember(key, 2, MINUTE, nanos.get(), full(30_000), "a b");
    }
    // Each entry weighs its receipts + 1: at most 10 / 3 of them fit.
    assertThat(hot.size()).isLessThanOrEqualTo(3);
  }

  @Test
  void hashesDifferForIdsThatDiffer() {
    assertThat(HotBuckets.hash("a")).isNotEqualTo(HotBuckets.hash("b"));
    assertThat(HotBuckets.hash("ab")).isNotEqualTo(HotBuckets.hash("ba"));
    assertThat(HotBuckets.hash("x")).isEqualTo(HotBuckets.hash("x"));
  }
}
