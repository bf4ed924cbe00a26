package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.BucketsSnapshot;
import dev.qinglong.core.quota.CallerQuota;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.OperationUsage;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.QuotaUsage;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.core.quota.SubjectType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Contract of {@link ManagementQuotaStore} (docs/design.md#management-quota): one fixed-window
 * bucket per key, decided in one statement on the database clock, idempotent by receipt id.
 */
public abstract class ManagementQuotaStoreContract extends StoreContractSupport {
  protected static final Duration WINDOW = Duration.ofSeconds(60);
  private static final long WINDOW_MS = WINDOW.toMillis();

  /** Rounds of the concurrency race; each round uses a fresh bucket. */
  protected static final int CONCURRENCY_ROUNDS = 20;

  private ManagementQuotaStore store() {
    return fixture.quotaStore(dataSource);
  }

  /** Another instance of the app: a store on a pool of its own. */
  private ManagementQuotaStore newInstance() {
    return fixture.quotaStore(fixture.newDataSource());
  }

  private static QuotaKey key(QuotaOperation op) {
    return QuotaKey.user(unique("prj"), unique("user"), op);
  }

  /** The request most tests spend their receipts on. */
  private static final RequestDigest SAME = RequestDigest.of(QuotaOperation.INSPECT, "prp-1");

  /** Another request: another target. */
  private static final RequestDigest OTHER = RequestDigest.of(QuotaOperation.INSPECT, "prp-2");

  /** A fresh key of {@code op} whose bucket admitted {@code receipts} under {@code limit}. */
  private QuotaKey admitted(QuotaOperation op, int limit, String... receipts) {
    QuotaKey key = key(op);
    for (String receipt : receipts) {
      consume(key, receipt, limit);
    }
    return key;
  }

  private static ReceiptId r(String id) {
    return new ReceiptId(id);
  }

  /** One decision of the class's store on {@link #SAME} in the default window. */
  private QuotaDecision consume(QuotaKey key, String receipt, int limit) {
    return consume(store(), key, receipt, limit);
  }

  private static QuotaDecision consume(
      ManagementQuotaStore on, QuotaKey key, String receipt, int limit) {
    return consume(on, key, receipt, SAME, limit);
  }

  private static QuotaDecision consume(
      ManagementQuotaStore on, QuotaKey key, String receipt, RequestDigest request, int limit) {
    return on.consume(key, r(receipt), request, limit, WINDOW);
  }

  /**
   * The limit {@link #allowed}, {@link #replayed} and {@link #withoutClock} put in place of the one
   * a decision carries: those comparisons are about the bucket; the limits-as-data tests compare
   * the {@link EffectiveLimit} itself.
   */
  private static final EffectiveLimit UNCOMPARED = EffectiveLimit.defaultLimit(1000);

  private static QuotaDecision.Allowed allowed(long windowStartedAtMs, int consumedCount) {
    return new QuotaDecision.Allowed(windowStartedAtMs, consumedCount, 0, UNCOMPARED);
  }

  private static QuotaDecision.Replayed replayed(long windowStartedAtMs, int consumedCount) {
    return new QuotaDecision.Replayed(windowStartedAtMs, consumedCount, 0, UNCOMPARED);
  }

  /** A refusal under the default limit {@code limit} (no policy). */
  private static QuotaDecision.Rejected rejected(
      long retryAfterSeconds, int limit, long windowStartedAtMs) {
    return new QuotaDecision.Rejected(
        retryAfterSeconds, EffectiveLimit.defaultLimit(limit), windowStartedAtMs);
  }

  /**
   * {@code d} with its database clock set to 0 and its limit to {@link #UNCOMPARED}, to compare
   * with {@link #allowed} and {@link #replayed}, after checking that clock: an admission or a
   * replay is decided inside its window.
   */
  private static QuotaDecision withoutClock(QuotaDecision d) {
    if (d instanceof QuotaDecision.Allowed a) {
      assertThat(a.databaseNowMs())
          .as("database now of %s", a)
          .isBetween(a.windowStartedAtMs(), a.windowStartedAtMs() + WINDOW_MS - 1);
      return allowed(a.windowStartedAtMs(), a.consumedCount());
    }
    if (d instanceof QuotaDecision.Replayed r) {
      assertThat(r.databaseNowMs())
          .as("database now of %s", r)
          .isBetween(r.windowStartedAtMs(), r.windowStartedAtMs() + WINDOW_MS - 1);
      return replayed(r.windowStartedAtMs(), r.consumedCount());
    }
    return d;
  }

  /** Moves the start of {@code key}'s window to {@code ms} before now on the database clock. */
  private void startWindowAgo(QuotaKey key, long ms) {
    fixture.setWindowStart(key, fixture.databaseNowMs() - ms);
  }

  private StoreFixture.BucketRow row(QuotaKey key) {
    return fixture.readBucket(key).orElseThrow(() -> new AssertionError("no bucket for " + key));
  }

  @Test
  void freshBucketStartsAtCountOneOnTheDatabaseClock() {
    QuotaKey key = key(QuotaOperation.PROPOSE);
    long before = fixture.databaseNowMs();
    QuotaDecision decision = consume(key, "a1", 3);
    long after = fixture.databaseNowMs();

    assertThat(decision).isInstanceOf(QuotaDecision.Allowed.class);
    QuotaDecision.Allowed allowed = (QuotaDecision.Allowed) decision;
    assertThat(allowed.consumedCount()).isEqualTo(1);
    assertThat(allowed.windowStartedAtMs()).isBetween(before, after);
    assertThat(allowed.databaseNowMs()).isBetween(before, after);
    StoreFixture.BucketRow row = row(key);
    assertThat(row.consumedCount()).isEqualTo(1);
    assertThat(row.receiptIds()).containsExactly("a1");
    assertThat(row.receiptDigests()).containsExactly(SAME.hex());
    assertThat(row.windowStartedAtMs()).isEqualTo(allowed.windowStartedAtMs());

    // A replay carries the database clock it was decided on, too.
    long beforeReplay = fixture.databaseNowMs();
    QuotaDecision replay = consume(key, "a1", 3);
    long afterReplay = fixture.databaseNowMs();
    assertThat(replay).isInstanceOf(QuotaDecision.Replayed.class);
    assertThat(((QuotaDecision.Replayed) replay).databaseNowMs())
        .isBetween(beforeReplay, afterReplay);
  }

  @Test
  void incrementsToTheLimitThenRejectsWithoutChangingTheRow() {
    QuotaKey key = key(QuotaOperation.DECIDE);
    for (int i = 1; i <= 5; i++) {
      QuotaDecision d = consume(key, "d" + i, 5);
      assertThat(withoutClock(d)).isEqualTo(allowed(row(key).windowStartedAtMs(), i));
    }
    StoreFixture.BucketRow full = row(key);
    QuotaDecision rejected = consume(key, "d6", 5);
    assertThat(rejected).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(row(key)).isEqualTo(full);
    assertThat(full.receiptIds()).containsExactly("d1", "d2", "d3", "d4", "d5");
  }

  @Test
  void retryAfterIsComputedOnTheDatabaseClockAndRoundedUp() {
    QuotaKey key = admitted(QuotaOperation.INSPECT, 1, "i1");

    startWindowAgo(key, 45_000);
    QuotaDecision d = consume(key, "i2", 1);
    assertThat(((QuotaDecision.Rejected) d).retryAfterSeconds()).isBetween(14L, 15L);

    // Less than one second left: still a whole second, never 0. A machine stalled past that second
    // lets the window end first (the decision then starts a new one): only such an attempt is
    // tried again, with the window moved back once more.
    long start = 0;
    QuotaDecision last = null;
    for (int attempt = 0; attempt < 5 && !(last instanceof QuotaDecision.Rejected); attempt++) {
      startWindowAgo(key, WINDOW_MS - 900);
      start = fixture.databaseNowMs() - (WINDOW_MS - 900);
      last = consume(key, "i3-" + attempt, 1);
      if (!(last instanceof QuotaDecision.Rejected)) {
        assertThat(fixture.databaseNowMs())
            .as("admitted while the window lasted: %s", last)
            .isGreaterThanOrEqualTo(start + WINDOW_MS);
      }
    }
    assertThat(last).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(((QuotaDecision.Rejected) last).retryAfterSeconds()).isEqualTo(1);
    assertThat(((QuotaDecision.Rejected) last).limit()).isEqualTo(EffectiveLimit.defaultLimit(1));
    // The refusal names the window it refused in, as the statement returned it.
    assertThat(((QuotaDecision.Rejected) last).windowStartedAtMs()).isBetween(start - 1_000, start);
  }

  @Test
  void windowResetsByTheDatabaseClock() {
    QuotaKey key = admitted(QuotaOperation.PROPOSE, 2, "a1", "a2");
    assertThat(consume(key, "a3", 2)).isInstanceOf(QuotaDecision.Rejected.class);

    startWindowAgo(key, WINDOW_MS);
    long before = fixture.databaseNowMs();
    QuotaDecision d = consume(key, "a3", 2);
    assertThat(d).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(((QuotaDecision.Allowed) d).consumedCount()).isEqualTo(1);
    StoreFixture.BucketRow row = row(key);
    assertThat(row.receiptIds()).containsExactly("a3");
    assertThat(row.windowStartedAtMs()).isGreaterThanOrEqualTo(before);
  }

  @Test
  void everyOperationIsAcceptedByTheDatabase() {
    // Guards the bucket table's CHECK on operation: a new QuotaOperation needs a migration.
    for (QuotaOperation op : QuotaOperation.values()) {
      QuotaKey key = key(op);
      assertThat(consume(key, "x1", 5)).isInstanceOf(QuotaDecision.Allowed.class);
      assertThat(row(key).consumedCount()).isEqualTo(1);
    }
  }

  @Test
  void replayWithinTheWindowIsAllowedAndNotCounted() {
    QuotaKey key = admitted(QuotaOperation.INSPECT, 3, "i1", "i2");
    QuotaDecision replay = consume(key, "i1", 3);
    assertThat(replay).isInstanceOf(QuotaDecision.Replayed.class);
    assertThat(((QuotaDecision.Replayed) replay).consumedCount()).isEqualTo(2);
    assertThat(row(key).receiptIds()).containsExactly("i1", "i2");
  }

  @Test
  void replayOfAnAdmittedReceiptIsAllowedEvenWhenTheWindowIsFull() {
    QuotaKey key = admitted(QuotaOperation.INSPECT, 2, "i1", "i2");
    assertThat(consume(key, "i3", 2)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(consume(key, "i2", 2)).isInstanceOf(QuotaDecision.Replayed.class);
    assertThat(row(key).consumedCount()).isEqualTo(2);
  }

  @Test
  void replayAfterTheWindowResetIsCountedInTheNewWindow() {
    QuotaKey key = admitted(QuotaOperation.PROPOSE, 5, "a1", "a2");
    startWindowAgo(key, WINDOW_MS + 1);
    QuotaDecision d = consume(key, "a1", 5);
    assertThat(d).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(row(key).receiptIds()).containsExactly("a1");
    assertThat(row(key).consumedCount()).isEqualTo(1);
  }

  @Test
  void bucketsAreSeparatePerProjectSubjectAndOperation() {
    QuotaKey key = key(QuotaOperation.PROPOSE);
    consume(key, "x", 1);
    QuotaKey otherOp = QuotaKey.user(key.projectId(), key.subjectId(), QuotaOperation.DECIDE);
    QuotaKey otherUser = QuotaKey.user(key.projectId(), unique("user"), QuotaOperation.PROPOSE);
    QuotaKey otherProject = QuotaKey.user(unique("prj"), key.subjectId(), QuotaOperation.PROPOSE);
    for (QuotaKey k : List.of(otherOp, otherUser, otherProject)) {
      assertThat(consume(k, "y", 1)).isInstanceOf(QuotaDecision.Allowed.class);
    }
    assertThat(consume(key, "y", 1)).isInstanceOf(QuotaDecision.Rejected.class);
  }

  @Test
  void holdsAThousandMaximumLengthReceiptsAndNoMore() {
    QuotaKey key = key(QuotaOperation.INSPECT);
    // The longest window, so that 1000 decisions on a loaded machine stay in one window.
    Duration window = ManagementQuotaPolicy.MAX_WINDOW;
    for (int i = 0; i < ManagementQuotaPolicy.MAX_LIMIT; i++) {
      String id = String.format("%04d", i) + "x".repeat(124);
      RequestDigest request = RequestDigest.of(QuotaOperation.INSPECT, id);
      QuotaDecision d =
          store().consume(key, r(id), request, ManagementQuotaPolicy.MAX_LIMIT, window);
      assertThat(d).isInstanceOf(QuotaDecision.Allowed.class);
    }
    assertThat(store().consume(key, r("one-more"), SAME, 1000, window))
        .isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(row(key).receiptIds()).hasSize(1000).allMatch(id -> id.length() == 128);
    // With its digest, every receipt is the largest there is: the bucket is at its size bound.
    assertThat(row(key).receiptDigests()).hasSize(1000).doesNotContainNull();
    assertThat(fixture.databaseRejectsOversizedReceipts(key(QuotaOperation.INSPECT))).isTrue();
  }

  @Test
  void overlongReceiptIdIsRefusedBeforeTheStore() {
    QuotaKey key = key(QuotaOperation.PROPOSE);
    assertThatThrownBy(() -> store().consume(key, new ReceiptId("r".repeat(129)), SAME, 5, WINDOW))
        .isInstanceOf(ValidationException.class);
    assertThat(fixture.readBucket(key)).isEmpty();
  }

  @Test
  void databaseEnforcesReceiptArrayLengthEqualsCount() {
    QuotaKey key = admitted(QuotaOperation.PROPOSE, 5, "a1");
    assertThat(fixture.databaseRejectsCountReceiptMismatch(key)).isTrue();
    assertThat(row(key).consumedCount()).isEqualTo(1);
  }

  @Test
  void responseLostAfterCommitIsReplayedWithoutCountingAgain() {
    QuotaKey key = key(QuotaOperation.INSPECT);
    FaultyDataSource losing = FaultyDataSource.losingNextResponse(fixture.newDataSource());
    assertThatThrownBy(() -> consume(fixture.quotaStore(losing), key, "lost-1", 8))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(losing.lostResponses()).isEqualTo(1);
    assertThat(row(key).consumedCount()).isEqualTo(1);

    QuotaDecision retry = consume(key, "lost-1", 8);
    assertThat(retry).isInstanceOf(QuotaDecision.Replayed.class);
    assertThat(row(key).consumedCount()).isEqualTo(1);
    assertThat(row(key).receiptIds()).containsExactly("lost-1");
  }

  @Test
  void aCorruptBucketIsUnavailableNeverAnAnswerFromBadData() {
    // Full by its count, but only two receipts: the read-back must not refuse (429) from it.
    QuotaKey full = key(QuotaOperation.PROPOSE);
    fixture.storeCorruptBucket(full, 5, List.of("c-1", "c-2"), SAME);
    assertThatThrownBy(() -> consume(full, "new", 5))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("corrupt");
    // A replay of a receipt that is there is not answered from a row that disagrees with itself.
    assertThatThrownBy(() -> consume(full, "c-1", 5))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("corrupt");
    // A count beyond any limit (receipts matching it) is out of range.
    QuotaKey over = key(QuotaOperation.INSPECT);
    fixture.storeCorruptBucket(
        over, 1001, IntStream.range(0, 1001).mapToObj(i -> "o-" + i).toList(), SAME);
    assertThatThrownBy(() -> consume(over, "new", 5))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("corrupt");
    // Nothing was written to either.
    assertThat(row(full).consumedCount()).isEqualTo(5);
    assertThat(row(full).receiptIds()).containsExactly("c-1", "c-2");
    assertThat(row(over).consumedCount()).isEqualTo(1001);
  }

  @Test
  void unreachableDatabaseIsUnavailableNeverAllowed() {
    QuotaKey key = key(QuotaOperation.PROPOSE);
    assertThatThrownBy(
            () ->
                fixture
                    .quotaStore(FaultyDataSource.unreachable())
                    .consume(key, r("a"), SAME, 5, WINDOW))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageNotContaining("SELECT")
        .hasMessageNotContaining("INSERT");
  }

  @Test
  void applicationClockADayOffDoesNotMoveTheWindow() {
    String project = unique("prj");
    addMember(project, "alice", Permission.PACKAGE_MANAGE);
    MutableClock appClock = new MutableClock(Instant.now().plus(Duration.ofDays(1)));
    PluginPackageGovernance governance =
        new PluginPackageGovernance(
            new ProjectPolicy(fixture.policyStore(dataSource), Set.of()),
            new ManagementQuota(
                store(),
                new ManagementQuotaPolicy(true, WINDOW, Map.of()),
                QuotaDecisionListener.NONE),
            fixture.governanceStore(dataSource),
            appClock);
    PluginPackageAction action = PluginPackageAction.of("remove", "acme", "1.0.0", null);

    long dbBefore = fixture.databaseNowMs();
    governance.propose(new Principal("alice"), project, "ref-1", action);
    long dbAfter = fixture.databaseNowMs();
    QuotaKey key = QuotaKey.user(project, "alice", QuotaOperation.PROPOSE);
    assertThat(row(key).windowStartedAtMs()).isBetween(dbBefore, dbAfter);

    // Two days back on the application clock: still the same database window.
    appClock.set(Instant.now().minus(Duration.ofDays(1)));
    governance.propose(new Principal("alice"), project, "ref-2", action);
    assertThat(row(key).consumedCount()).isEqualTo(2);
    assertThat(row(key).windowStartedAtMs()).isBetween(dbBefore, dbAfter);
  }

  @Test
  void twoInstancesSixteenThreadsAdmitExactlyTheLimitEveryRound() throws Exception {
    ManagementQuotaStore instanceA = newInstance();
    ManagementQuotaStore instanceB = newInstance();
    int threads = 16;
    int limit = 8;
    for (int round = 0; round < CONCURRENCY_ROUNDS; round++) {
      QuotaKey key = key(QuotaOperation.INSPECT);
      List<Callable<QuotaDecision>> calls = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        ManagementQuotaStore instance = t % 2 == 0 ? instanceA : instanceB;
        String receipt = "round" + round + "-id" + t;
        calls.add(() -> consume(instance, key, receipt, limit));
      }
      List<QuotaDecision> decisions = race(calls);
      long allowed = decisions.stream().filter(d -> d instanceof QuotaDecision.Allowed).count();
      long rejected = decisions.stream().filter(d -> d instanceof QuotaDecision.Rejected).count();
      assertThat(allowed).as("round %d allowed", round).isEqualTo(limit);
      assertThat(rejected).as("round %d rejected", round).isEqualTo(threads - limit);
      assertThat(row(key).consumedCount()).isEqualTo(limit);
      assertThat(
              decisions.stream()
                  .filter(d -> d instanceof QuotaDecision.Allowed)
                  .map(d -> ((QuotaDecision.Allowed) d).consumedCount()))
          .containsExactlyInAnyOrderElementsOf(IntStream.rangeClosed(1, limit).boxed().toList());

      // Every admitted id replays as allowed on either instance without counting again.
      List<String> admitted = row(key).receiptIds();
      for (String id : admitted) {
        assertThat(consume(instanceA, key, id, limit)).isInstanceOf(QuotaDecision.Replayed.class);
        assertThat(consume(instanceB, key, id, limit)).isInstanceOf(QuotaDecision.Replayed.class);
      }
      assertThat(row(key).consumedCount()).isEqualTo(limit);
    }
  }

  // ---- one statement per decision -------------------------------------------------------------

  @Test
  void everyOutcomeIsDecidedByOneStatementOnOneConnection() {
    QuotaKey key = key(QuotaOperation.DECIDE);
    FaultyDataSource counting = new FaultyDataSource(dataSource);
    List<QuotaDecision> decisions = new ArrayList<>();
    // A new store each time: nothing is answered from what an instance has seen before.
    decisions.add(consume(fixture.quotaStore(counting), key, "a", 2));
    decisions.add(consume(fixture.quotaStore(counting), key, "b", 2));
    decisions.add(consume(fixture.quotaStore(counting), key, "a", 2));
    decisions.add(consume(fixture.quotaStore(counting), key, "a", OTHER, 2));
    decisions.add(consume(fixture.quotaStore(counting), key, "c", 2));
    long start = row(key).windowStartedAtMs();
    assertThat(decisions.subList(0, 4).stream().map(ManagementQuotaStoreContract::withoutClock))
        .containsExactly(
            allowed(start, 1),
            allowed(start, 2),
            replayed(start, 2),
            new QuotaDecision.KeyReused());
    assertThat(decisions.get(4)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(counting.statements()).isEqualTo(5);
    assertThat(counting.connections()).isEqualTo(5);

    // A restarted window is one statement too.
    startWindowAgo(key, WINDOW_MS);
    QuotaDecision restarted = consume(fixture.quotaStore(counting), key, "c", 2);
    assertThat(withoutClock(restarted)).isEqualTo(allowed(row(key).windowStartedAtMs(), 1));
    assertThat(counting.statements()).isEqualTo(6);
  }

  @Test
  void aReplayInTheMillisecondOfItsAdmissionIsAReplay() {
    // Many decisions fit in one millisecond: a replay right after its admission, often in the same
    // millisecond of the database clock, is still a replay and never a second admission.
    ManagementQuotaStore instance = store();
    for (int i = 0; i < 300; i++) {
      QuotaKey key = key(QuotaOperation.INSPECT);
      QuotaDecision admitted = consume(instance, key, "m", 5);
      QuotaDecision replayed = consume(instance, key, "m", 5);
      assertThat(admitted).isInstanceOf(QuotaDecision.Allowed.class);
      long start = ((QuotaDecision.Allowed) admitted).windowStartedAtMs();
      assertThat(withoutClock(replayed)).as("round %d", i).isEqualTo(replayed(start, 1));
    }
  }

  @Test
  void decisionsAcrossWindowBoundariesAreNeverUndetermined() throws Exception {
    // One-second windows, two instances, eight threads for about three seconds: every decision is
    // an allow or a refusal (an exception fails the test), and each window counts 1, 2, … once.
    Duration window = Duration.ofSeconds(1);
    int limit = 3;
    QuotaKey key = key(QuotaOperation.INSPECT);
    ManagementQuotaStore instanceA = newInstance();
    ManagementQuotaStore instanceB = newInstance();
    int threads = 8;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    List<Callable<List<QuotaDecision>>> calls = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ManagementQuotaStore instance = t % 2 == 0 ? instanceA : instanceB;
      String prefix = "t" + t + "-";
      calls.add(
          () -> {
            List<QuotaDecision> mine = new ArrayList<>();
            for (int i = 0; System.nanoTime() < until; i++) {
              mine.add(instance.consume(key, r(prefix + i), SAME, limit, window));
            }
            return mine;
          });
    }
    Map<Long, List<Integer>> countsByWindow = new java.util.TreeMap<>();
    long rejected = 0;
    for (List<QuotaDecision> mine : race(calls)) {
      for (QuotaDecision d : mine) {
        if (d instanceof QuotaDecision.Allowed allowed) {
          countsByWindow
              .computeIfAbsent(allowed.windowStartedAtMs(), w -> new ArrayList<>())
              .add(allowed.consumedCount());
        } else {
          assertThat(d).isInstanceOf(QuotaDecision.Rejected.class);
          rejected++;
        }
      }
    }
    assertThat(countsByWindow).hasSizeGreaterThanOrEqualTo(2);
    assertThat(rejected).isPositive();
    countsByWindow.forEach(
        (start, counts) ->
            assertThat(counts.stream().sorted().toList())
                .as("window %d", start)
                .isEqualTo(IntStream.rangeClosed(1, counts.size()).boxed().toList())
                .hasSizeLessThanOrEqualTo(limit));
  }

  // ---- the hot-bucket fast path (docs/benchmarks.md#the-hot-bucket-fast-path) ----------------

  @Test
  void aFullBucketRefusesNewIdsWithoutTheDatabaseAndStillRecognisesItsReceipts() {
    QuotaKey key = key(QuotaOperation.INSPECT);
    FaultyDataSource counting = new FaultyDataSource(dataSource);
    // A clock that stands still: the hold (at most 1 s) cannot end while the test counts.
    ManagementQuotaStore instance = fixture.quotaStore(counting, () -> 0L);
    for (String id : List.of("h1", "h2", "h3")) {
      assertThat(consume(instance, key, id, 3)).isInstanceOf(QuotaDecision.Allowed.class);
    }
    StoreFixture.BucketRow full = row(key);
    for (int i = 0; i < 50; i++) {
      assertThat(consume(instance, key, "new-" + i, 3)).isInstanceOf(QuotaDecision.Rejected.class);
    }
    // The admission that filled the bucket told the instance so: no refusal took a connection.
    assertThat(counting.connections()).isEqualTo(3);
    assertThat(counting.statements()).isEqualTo(3);

    // Its receipts still replay, and a reused id is still 409: the database decides both.
    assertThat(consume(instance, key, "h3", OTHER, 3)).isEqualTo(new QuotaDecision.KeyReused());
    assertThat(row(key)).isEqualTo(full);
    assertThat(withoutClock(consume(instance, key, "h2", 3)))
        .isEqualTo(replayed(full.windowStartedAtMs(), 3));
    assertThat(counting.statements()).isEqualTo(5);
    // A replay in the millisecond of the last admission may move updated_at_ms back by one on
    // SQLite (its dialect's marker that the statement did not count); the rest stays.
    assertThat(row(key)).usingRecursiveComparison().ignoringFields("updatedAtMs").isEqualTo(full);

    // A decision under another limit is not the held one's: the database counts it.
    assertThat(withoutClock(consume(instance, key, "more", 4)))
        .isEqualTo(allowed(full.windowStartedAtMs(), 4));
  }

  @Test
  void twoInstancesHoldingOneFullBucketAnswerExactlyAsTheDatabase() {
    QuotaKey key = key(QuotaOperation.DECIDE);
    FaultyDataSource countingA = new FaultyDataSource(fixture.newDataSource());
    FaultyDataSource countingB = new FaultyDataSource(fixture.newDataSource());
    ManagementQuotaStore a = fixture.quotaStore(countingA, () -> 0L);
    ManagementQuotaStore b = fixture.quotaStore(countingB, () -> 0L);
    assertThat(consume(a, key, "a1", 3)).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(consume(a, key, "a2", 3)).isInstanceOf(QuotaDecision.Allowed.class);
    // B fills the bucket, so B holds it; A has not seen it full, asks the database, then holds it.
    assertThat(consume(b, key, "b1", OTHER, 3)).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(consume(a, key, "x1", 3)).isInstanceOf(QuotaDecision.Rejected.class);
    int statementsA = countingA.statements();
    int statementsB = countingB.statements();
    assertThat(consume(a, key, "x2", 3)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(consume(b, key, "x3", 3)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(countingA.statements()).isEqualTo(statementsA);
    assertThat(countingB.statements()).isEqualTo(statementsB);

    // Each replays the other's receipts and refuses their reuse for another request.
    long start = row(key).windowStartedAtMs();
    assertThat(withoutClock(consume(a, key, "b1", OTHER, 3))).isEqualTo(replayed(start, 3));
    assertThat(withoutClock(consume(b, key, "a1", 3))).isEqualTo(replayed(start, 3));
    assertThat(consume(a, key, "b1", 3)).isEqualTo(new QuotaDecision.KeyReused());
    assertThat(consume(b, key, "a2", OTHER, 3)).isEqualTo(new QuotaDecision.KeyReused());
    assertThat(row(key).consumedCount()).isEqualTo(3);
    assertThat(row(key).receiptIds()).containsExactly("a1", "a2", "b1");
  }

  @Test
  void aHeldBucketEndsWithItsWindowOnTheDatabaseClockWhateverTheApplicationClock()
      throws Exception {
    // Three instances whose monotonic clocks have origins ten years apart: the fast path measures
    // only how much of the database's remaining window has passed, so all answer alike. Each sees
    // its bucket full with less than the fast path's longest hold (1 s) left of the window on the
    // database clock: the hold ends with the window, never after it.
    long tenYears = TimeUnit.DAYS.toNanos(3652);
    List<LongSupplier> clocks =
        List.of(
            System::nanoTime,
            () -> System.nanoTime() + tenYears,
            () -> System.nanoTime() - tenYears);
    List<QuotaKey> keys = new ArrayList<>();
    List<ManagementQuotaStore> instances = new ArrayList<>();
    long lastEnd = 0;
    for (LongSupplier clock : clocks) {
      ManagementQuotaStore instance = fixture.quotaStore(dataSource, clock);
      // A machine stalled past the 800 ms lets the window end before p2 or p3 (they then count in
      // a new one): only such an attempt is tried again, on a new bucket.
      for (int attempt = 0; ; attempt++) {
        QuotaKey key = key(QuotaOperation.PROPOSE);
        consume(instance, key, "p1", 2);
        long start = fixture.databaseNowMs() - (WINDOW_MS - 800);
        fixture.setWindowStart(key, start);
        // Fills it (held from here), then a new id is refused with the database's last second.
        QuotaDecision p2 = consume(instance, key, "p2", 2);
        QuotaDecision p3 = consume(instance, key, "p3", 2);
        boolean asExpected =
            p2 instanceof QuotaDecision.Allowed
                && withoutClock(p2).equals(allowed(start, 2))
                && p3.equals(rejected(1, 2, start));
        if (!asExpected && attempt < 4 && fixture.databaseNowMs() >= start + WINDOW_MS) {
          continue;
        }
        assertThat(withoutClock(p2)).isEqualTo(allowed(start, 2));
        assertThat(p3).isEqualTo(rejected(1, 2, start));
        keys.add(key);
        instances.add(instance);
        lastEnd = Math.max(lastEnd, start + WINDOW_MS);
        break;
      }
    }
    while (fixture.databaseNowMs() < lastEnd) {
      Thread.sleep(5);
    }
    // The database's window has ended: the very next decision of each instance restarts it.
    for (int i = 0; i < clocks.size(); i++) {
      QuotaDecision next = consume(instances.get(i), keys.get(i), "p4", 2);
      assertThat(withoutClock(next))
          .as("instance %d", i)
          .isEqualTo(allowed(row(keys.get(i)).windowStartedAtMs(), 1));
      assertThat(row(keys.get(i)).windowStartedAtMs()).isGreaterThanOrEqualTo(lastEnd);
    }
  }

  @Test
  void aBucketReadWithACountAboveTheLimitIsNotHeld() {
    // Another process counts with a higher limit: the bucket may still grow, so this instance,
    // refused under its lower limit, keeps asking the database and sees the replay of an id the
    // other process counts later.
    QuotaKey key = key(QuotaOperation.INSPECT);
    FaultyDataSource counting = new FaultyDataSource(dataSource);
    ManagementQuotaStore lowLimit = fixture.quotaStore(counting, () -> 0L);
    ManagementQuotaStore highLimit = fixture.quotaStore(dataSource);
    consume(highLimit, key, "h1", 3);
    consume(highLimit, key, "h2", 3);
    assertThat(consume(lowLimit, key, "l1", 1)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(consume(lowLimit, key, "l2", 1)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(counting.statements()).isEqualTo(2);
    assertThat(consume(highLimit, key, "h3", 3)).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(consume(lowLimit, key, "h3", 1)).isInstanceOf(QuotaDecision.Replayed.class);
  }

  // ---- a receipt id names one request (docs/design.md#receipts, idempotency_key_reused) ---------

  @Test
  void sameIdForAnotherRequestIsKeyReusedNeverAllowedNeverCounted() {
    QuotaKey key = key(QuotaOperation.INSPECT);
    assertThat(consume(key, "x", 5)).isInstanceOf(QuotaDecision.Allowed.class);
    StoreFixture.BucketRow before = row(key);

    assertThat(consume(store(), key, "x", OTHER, 5)).isEqualTo(new QuotaDecision.KeyReused());
    assertThat(row(key)).isEqualTo(before);
    assertThat(row(key).receiptDigests()).containsExactly(SAME.hex());

    // The original request still replays; a new id is still counted.
    assertThat(consume(key, "x", 5)).isInstanceOf(QuotaDecision.Replayed.class);
    assertThat(withoutClock(consume(store(), key, "y", OTHER, 5)))
        .isEqualTo(allowed(before.windowStartedAtMs(), 2));
  }

  @Test
  void reusedIdIsKeyReusedEvenWhenTheWindowIsFull() {
    QuotaKey key = admitted(QuotaOperation.DECIDE, 1, "d1");
    assertThat(consume(key, "d2", 1)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(consume(store(), key, "d1", OTHER, 1)).isEqualTo(new QuotaDecision.KeyReused());
    assertThat(row(key).consumedCount()).isEqualTo(1);
  }

  @Test
  void afterTheWindowEndsTheIdIsFreeForAnotherRequest() {
    QuotaKey key = admitted(QuotaOperation.INSPECT, 5, "x");
    startWindowAgo(key, WINDOW_MS + 1);
    assertThat(consume(store(), key, "x", OTHER, 5)).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(row(key).receiptDigests()).containsExactly(OTHER.hex());
  }

  @Test
  void databaseRefusesReceiptsOfAnotherShape() {
    assertThat(fixture.databaseRejectsMalformedReceipts(key(QuotaOperation.INSPECT))).isTrue();
  }

  /** The schema keeps what a CHECK on the operation names kept: no bucket of an unknown one. */
  @Test
  void databaseRefusesABucketOfAnUnknownOperation() {
    assertThat(fixture.databaseRejectsUnknownOperation(key(QuotaOperation.PROPOSE))).isTrue();
  }

  /**
   * A new operation is one row in {@code management_quota_operations} (its migration is one
   * INSERT): the deciding statement refuses a bucket of it before, and counts, replays and refuses
   * its receipts after, with no table rebuilt and no other change.
   */
  @Test
  void anOperationAddedByOneInsertIsDecidedLikeEveryOther() {
    String operation = "plugin-package." + unique("new").toLowerCase(java.util.Locale.ROOT);
    String project = unique("prj");
    String user = unique("user");
    assertThatThrownBy(
            () -> fixture.decide(project, user, operation, "n-1", SAME.hex(), 2, WINDOW_MS))
        .isInstanceOf(IllegalStateException.class)
        .hasCauseInstanceOf(java.sql.SQLException.class);

    fixture.addOperation(operation);

    assertThat(fixture.decide(project, user, operation, "n-1", SAME.hex(), 2, WINDOW_MS))
        .isEqualTo("allowed");
    assertThat(fixture.decide(project, user, operation, "n-1", SAME.hex(), 2, WINDOW_MS))
        .isEqualTo("replayed");
    assertThat(fixture.decide(project, user, operation, "n-1", OTHER.hex(), 2, WINDOW_MS))
        .isEqualTo("key_reused");
    assertThat(fixture.decide(project, user, operation, "n-2", SAME.hex(), 2, WINDOW_MS))
        .isEqualTo("allowed");
    assertThat(fixture.decide(project, user, operation, "n-3", SAME.hex(), 2, WINDOW_MS))
        .isEqualTo("rejected");
    // The known operations of the same subject are buckets of their own, untouched.
    assertThat(fixture.readBucket(QuotaKey.user(project, user, QuotaOperation.PROPOSE))).isEmpty();
  }

  @Test
  void twoInstancesRacingOneIdWithTwoRequestsAllowExactlyOne() throws Exception {
    ManagementQuotaStore instanceA = newInstance();
    ManagementQuotaStore instanceB = newInstance();
    for (int round = 0; round < CONCURRENCY_ROUNDS; round++) {
      QuotaKey key = key(QuotaOperation.INSPECT);
      // Half the rounds start from an existing bucket (the update path), half from none.
      if (round % 2 == 1) {
        consume(key, "warm-" + round, 8);
      }
      String receipt = "race-" + round;
      List<QuotaDecision> decisions =
          race(
              List.of(
                  () -> consume(instanceA, key, receipt, 8),
                  () -> consume(instanceB, key, receipt, OTHER, 8)));
      assertThat(decisions.stream().filter(d -> d instanceof QuotaDecision.Allowed).count())
          .as("round %d allowed", round)
          .isEqualTo(1);
      assertThat(decisions).as("round %d", round).contains(new QuotaDecision.KeyReused());
      StoreFixture.BucketRow row = row(key);
      assertThat(row.consumedCount()).isEqualTo(1 + round % 2);
      String winner = decisions.get(0) instanceof QuotaDecision.Allowed ? SAME.hex() : OTHER.hex();
      assertThat(row.receiptDigests().get(row.receiptDigests().size() - 1)).isEqualTo(winner);
    }
  }

  // --- the caller's quota read (GET …/management-quota) ---

  @Test
  void bucketsReadShowsTheSubjectsBucketsOnTheDatabaseClockAndChangesNothing() {
    String project = unique("prj");
    String user = unique("user");
    QuotaKey propose = QuotaKey.user(project, user, QuotaOperation.PROPOSE);
    QuotaKey inspect = QuotaKey.user(project, user, QuotaOperation.INSPECT);
    consume(propose, "p1", 5);
    consume(propose, "p2", 5);
    consume(inspect, "i1", 5);
    // Another user in the Project and the user in another Project are not the caller's.
    store()
        .consume(QuotaKey.user(project, "other", QuotaOperation.DECIDE), r("x"), SAME, 5, WINDOW);
    store()
        .consume(
            QuotaKey.user(unique("prj"), user, QuotaOperation.DECIDE), r("y"), SAME, 5, WINDOW);
    long before = fixture.databaseNowMs();
    BucketsSnapshot snapshot = store().buckets(project, SubjectType.USER, user);
    long after = fixture.databaseNowMs();

    assertThat(snapshot.databaseNowMs()).isBetween(before, after);
    assertThat(snapshot.buckets())
        .containsOnlyKeys(QuotaOperation.PROPOSE, QuotaOperation.INSPECT)
        .containsEntry(
            QuotaOperation.PROPOSE, new BucketsSnapshot.Bucket(row(propose).windowStartedAtMs(), 2))
        .containsEntry(
            QuotaOperation.INSPECT,
            new BucketsSnapshot.Bucket(row(inspect).windowStartedAtMs(), 1));
    assertThat(row(propose).consumedCount()).isEqualTo(2);
    assertThat(store().buckets(unique("prj"), SubjectType.USER, user).buckets()).isEmpty();
  }

  @Test
  void callerQuotaReportsUsedRemainingAndResetFromTheDatabaseAndEndedWindowsAsUnused() {
    String project = unique("prj");
    addMember(project, "ann", Permission.PACKAGE_READ);
    QuotaKey propose = QuotaKey.user(project, "ann", QuotaOperation.PROPOSE);
    QuotaKey decide = QuotaKey.user(project, "ann", QuotaOperation.DECIDE);
    consume(propose, "p1", 5);
    consume(decide, "d1", 5);
    startWindowAgo(decide, WINDOW_MS + 1);
    CallerQuota reads =
        new CallerQuota(
            new ProjectPolicy(fixture.policyStore(dataSource), Set.of()),
            store(),
            new ManagementQuotaPolicy(true, WINDOW, Map.of(QuotaOperation.PROPOSE, 5)));

    QuotaUsage usage = reads.read(new Principal("ann"), project);
    OperationUsage p = usage.operations().get(QuotaOperation.PROPOSE.ordinal());
    assertThat(p.operation()).isEqualTo(QuotaOperation.PROPOSE);
    assertThat(p.used()).isEqualTo(1);
    assertThat(p.remaining()).isEqualTo(4);
    assertThat(p.windowStartedAtMs()).isEqualTo(row(propose).windowStartedAtMs());
    assertThat(p.resetAtMs()).isEqualTo(row(propose).windowStartedAtMs() + WINDOW_MS);
    assertThat(p.resetSeconds())
        .isBetween(1L, (p.resetAtMs() - usage.databaseNowMs() + 999) / 1000);
    OperationUsage d = usage.operations().get(QuotaOperation.DECIDE.ordinal());
    assertThat(d.used()).isZero();
    assertThat(d.remaining()).isEqualTo(d.limit());
    assertThat(d.windowStartedAtMs()).isNull();
    assertThat(usage.operations()).hasSize(QuotaOperation.values().length);
    // Reading spent nothing.
    assertThat(row(propose).consumedCount()).isEqualTo(1);
    assertThatThrownBy(() -> reads.read(new Principal("nobody"), project))
        .isInstanceOf(dev.qinglong.core.kernel.ForbiddenException.class);
  }

  @Test
  void callerQuotaOfACorruptBucketIsUnavailable() {
    String project = unique("prj");
    addMember(project, "ann", Permission.PACKAGE_READ);
    fixture.storeCorruptBucket(
        QuotaKey.user(project, "ann", QuotaOperation.INSPECT),
        1001,
        IntStream.range(0, 1001).mapToObj(i -> "o-" + i).toList(),
        SAME);
    CallerQuota reads =
        new CallerQuota(
            new ProjectPolicy(fixture.policyStore(dataSource), Set.of()),
            store(),
            ManagementQuotaPolicy.defaults());
    assertThatThrownBy(() -> reads.read(new Principal("ann"), project))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(
            () ->
                fixture
                    .quotaStore(FaultyDataSource.unreachable())
                    .buckets(project, SubjectType.USER, "ann"))
        .isInstanceOf(StoreUnavailableException.class);
  }
}
