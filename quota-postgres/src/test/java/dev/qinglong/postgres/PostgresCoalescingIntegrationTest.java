package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.LimitSource;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaLimits;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore.Coalescing;
import dev.qinglong.testkit.FaultyDataSource;
import dev.qinglong.testkit.InterceptingDataSource;
import dev.qinglong.testkit.StoreFixture;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Coalescing (docs/stores.md#coalescing-postgresql) on PostgreSQL: concurrent decisions of one
 * {@link JdbcManagementQuotaStore} share one statement (the dialect's batch form) and one commit,
 * with every caller's outcome exactly what deciding alone gives. Real threads, two independent
 * store instances with pools of their own on one database, exact counts; batches are made
 * deterministic by holding a leader's connection at a gate until the callers behind it are queued.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresCoalescingIntegrationTest {
  private static final Duration WINDOW = Duration.ofMinutes(10);
  private static final RequestDigest SAME = RequestDigest.of(QuotaOperation.INSPECT, "prp-1");
  private static final RequestDigest OTHER = RequestDigest.of(QuotaOperation.INSPECT, "prp-2");

  private PostgresFixture fixture;

  /** Statements the last batch of {@link #inOneBatch} ran (the leader's one not counted). */
  private int lastBatchStatements;

  @BeforeAll
  void open() {
    fixture = new PostgresFixture("coalescing");
  }

  @AfterAll
  void close() {
    fixture.close();
  }

  private static QuotaKey key(QuotaOperation op) {
    return QuotaKey.user(unique("prj"), unique("user"), op);
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 12);
  }

  private static ReceiptId r(String id) {
    return new ReceiptId(id);
  }

  /** One request for a decision. */
  private record Ask(QuotaKey key, String receipt, RequestDigest digest, int limit, Duration w) {
    QuotaDecision on(ManagementQuotaStore store) {
      return store.consume(key, new ReceiptId(receipt), digest, limit, w);
    }
  }

  @Test
  void concurrentDecisionsOfTwoInstancesShareStatementsAndAdmitExactlyOncePerReceipt()
      throws Exception {
    // Every decision admits (limit never reached), so the fast path never answers: every decision
    // needs the database, and fewer statements than decisions means they were grouped.
    FaultyDataSource poolA =
        new FaultyDataSource(fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2));
    FaultyDataSource poolB =
        new FaultyDataSource(fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2));
    List<ManagementQuotaStore> stores =
        List.of(
            new JdbcManagementQuotaStore(poolA, PostgresDialect.INSTANCE, Coalescing.forPool(2)),
            new JdbcManagementQuotaStore(poolB, PostgresDialect.INSTANCE, Coalescing.forPool(2)));
    int buckets = 12;
    int receiptsPerBucket = 60;
    List<QuotaKey> keys = new ArrayList<>();
    for (int b = 0; b < buckets; b++) {
      keys.add(key(b % 2 == 0 ? QuotaOperation.INSPECT : QuotaOperation.PROPOSE));
    }
    int threadsPerStore = 8;
    Map<QuotaKey, AtomicInteger> allowed = new ConcurrentHashMap<>();
    Map<QuotaKey, AtomicInteger> replayed = new ConcurrentHashMap<>();
    keys.forEach(
        k -> {
          allowed.put(k, new AtomicInteger());
          replayed.put(k, new AtomicInteger());
        });
    CountDownLatch start = new CountDownLatch(1);
    List<FutureTask<Integer>> tasks = new ArrayList<>();
    // Every receipt is sent by both instances: one send admits it, the other is a replay. The
    // instances walk the buckets in opposite orders, so their batches hold overlapping buckets in
    // different arrival orders: without the statement's one lock order (sorted by bucket) they
    // deadlock (40P01, a 503 here).
    for (int s = 0; s < stores.size(); s++) {
      ManagementQuotaStore store = stores.get(s);
      for (int t = 0; t < threadsPerStore; t++) {
        int thread = t;
        int offset = s;
        tasks.add(
            new FutureTask<>(
                () -> {
                  start.await();
                  int decisions = 0;
                  for (int i = thread; i < buckets * receiptsPerBucket; i += threadsPerStore) {
                    // Instance B walks the receipts in another order, so that sends collide.
                    int n = offset == 0 ? i : buckets * receiptsPerBucket - 1 - i;
                    QuotaKey k = keys.get(n % buckets);
                    QuotaDecision d = store.consume(k, r("rcpt-" + n), SAME, 1000, WINDOW);
                    if (d instanceof QuotaDecision.Allowed) {
                      allowed.get(k).incrementAndGet();
                    } else if (d instanceof QuotaDecision.Replayed) {
                      replayed.get(k).incrementAndGet();
                    } else {
                      throw new AssertionError("unexpected " + d);
                    }
                    decisions++;
                  }
                  return decisions;
                }));
      }
    }
    int decisions = runAll(tasks, start);

    assertThat(decisions).isEqualTo(2 * buckets * receiptsPerBucket);
    for (QuotaKey k : keys) {
      assertThat(allowed.get(k).get()).as("admitted in %s", k).isEqualTo(receiptsPerBucket);
      assertThat(replayed.get(k).get()).as("replayed in %s", k).isEqualTo(receiptsPerBucket);
      StoreFixture.BucketRow row = fixture.readBucket(k).orElseThrow();
      assertThat(row.consumedCount()).isEqualTo(receiptsPerBucket);
      assertThat(row.receiptIds()).hasSize(receiptsPerBucket).doesNotHaveDuplicates();
    }
    int statements = poolA.statements() + poolB.statements();
    assertThat(statements).as("statements for %d decisions", decisions).isLessThan(decisions);
  }

  @Test
  void contendedBucketsOfTwoInstancesAdmitExactlyTheLimit() throws Exception {
    List<ManagementQuotaStore> stores =
        List.of(
            new JdbcManagementQuotaStore(
                fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2),
                PostgresDialect.INSTANCE,
                Coalescing.forPool(2)),
            new JdbcManagementQuotaStore(
                fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2),
                PostgresDialect.INSTANCE,
                Coalescing.forPool(2)));
    int buckets = 6;
    int limit = 25;
    int receiptsPerBucket = 70;
    List<QuotaKey> keys = new ArrayList<>();
    for (int b = 0; b < buckets; b++) {
      keys.add(key(QuotaOperation.INSPECT));
    }
    Map<String, QuotaDecision> admittedBy = new ConcurrentHashMap<>();
    Map<QuotaKey, AtomicInteger> allowed = new ConcurrentHashMap<>();
    keys.forEach(k -> allowed.put(k, new AtomicInteger()));
    CountDownLatch start = new CountDownLatch(1);
    List<FutureTask<Integer>> tasks = new ArrayList<>();
    int threadsPerStore = 8;
    for (int s = 0; s < stores.size(); s++) {
      ManagementQuotaStore store = stores.get(s);
      for (int t = 0; t < threadsPerStore; t++) {
        int thread = t;
        int offset = s;
        tasks.add(
            new FutureTask<>(
                () -> {
                  start.await();
                  int decisions = 0;
                  for (int i = thread; i < buckets * receiptsPerBucket; i += threadsPerStore) {
                    int n = offset == 0 ? i : buckets * receiptsPerBucket - 1 - i;
                    QuotaKey k = keys.get(n % buckets);
                    QuotaDecision d = store.consume(k, r("rcpt-" + n), SAME, limit, WINDOW);
                    if (d instanceof QuotaDecision.Allowed) {
                      allowed.get(k).incrementAndGet();
                      admittedBy.put("rcpt-" + n, d);
                    } else if (!(d instanceof QuotaDecision.Replayed
                        || d instanceof QuotaDecision.Rejected)) {
                      throw new AssertionError("unexpected " + d);
                    }
                    decisions++;
                  }
                  return decisions;
                }));
      }
    }
    int decisions = runAll(tasks, start);

    assertThat(decisions).isEqualTo(2 * buckets * receiptsPerBucket);
    for (QuotaKey k : keys) {
      assertThat(allowed.get(k).get()).as("admitted in %s", k).isEqualTo(limit);
      StoreFixture.BucketRow row = fixture.readBucket(k).orElseThrow();
      assertThat(row.consumedCount()).isEqualTo(limit);
      assertThat(row.receiptIds()).hasSize(limit).doesNotHaveDuplicates();
      assertThat(admittedBy.keySet()).containsAll(row.receiptIds());
    }
    assertThat(admittedBy).hasSize(buckets * limit);
  }

  @Test
  void oneBatchSplitsABucketsRequestsIntoRoundsInArrivalOrder() throws Exception {
    Gate gate = new Gate(fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2));
    FaultyDataSource counting = new FaultyDataSource(gate);
    ManagementQuotaStore store =
        new JdbcManagementQuotaStore(
            counting, PostgresDialect.INSTANCE, new Coalescing(1, 64, Duration.ofSeconds(30)));
    QuotaKey k = key(QuotaOperation.INSPECT);
    QuotaKey shortWindow = key(QuotaOperation.PROPOSE);
    Duration tenSeconds = Duration.ofSeconds(10);
    QuotaKey leaderKey = key(QuotaOperation.INSPECT);

    List<Ask> batch =
        List.of(
            new Ask(k, "a", SAME, 3, WINDOW),
            new Ask(shortWindow, "x", SAME, 1, tenSeconds),
            new Ask(k, "b", SAME, 3, WINDOW),
            new Ask(shortWindow, "y", SAME, 1, tenSeconds),
            new Ask(k, "a", SAME, 3, WINDOW),
            new Ask(k, "a", OTHER, 3, WINDOW),
            new Ask(k, "c", SAME, 3, WINDOW),
            new Ask(k, "d", SAME, 3, WINDOW),
            new Ask(k, "e", SAME, 3, WINDOW));
    long before = fixture.databaseNowMs();
    List<QuotaDecision> decided = inOneBatch(store, gate, counting, leaderKey, batch);
    long after = fixture.databaseNowMs();

    // Rounds: {k:a, short:x}, {k:b, short:y}, {k:a}, {k:a'}, {k:c}, {k:d}, {k:e}. Round 1 fills
    // the short window and round 5 fills k: y, d and e are new ids for buckets seen full, refused
    // without a statement as the fast path refuses them. 5 statements for 9 decisions.
    assertThat(lastBatchStatements).isEqualTo(5);
    QuotaDecision.Allowed first = (QuotaDecision.Allowed) decided.get(0);
    assertThat(first.consumedCount()).isEqualTo(1);
    assertThat(first.windowStartedAtMs()).isBetween(before, after);
    QuotaDecision.Allowed x = (QuotaDecision.Allowed) decided.get(1);
    assertThat(x.consumedCount()).isEqualTo(1);
    QuotaDecision.Allowed second = (QuotaDecision.Allowed) decided.get(2);
    assertThat(second.windowStartedAtMs()).isEqualTo(first.windowStartedAtMs());
    assertThat(second.consumedCount()).isEqualTo(2);
    // The short window's limit of 1 holds in the same batch: Retry-After counts down its 10 s.
    QuotaDecision.Rejected y = (QuotaDecision.Rejected) decided.get(3);
    assertThat(y.retryAfterSeconds())
        .isBetween(
            retryAfter(x.windowStartedAtMs(), tenSeconds, after),
            retryAfter(x.windowStartedAtMs(), tenSeconds, before));
    // The id admitted in round 1 is a replay in round 3, and a reused key with another digest.
    assertThat(decided.get(4))
        .isEqualTo(
            new QuotaDecision.Replayed(
                first.windowStartedAtMs(), 2, replayNow(decided), EffectiveLimit.defaultLimit(3)));
    assertThat(decided.get(5)).isEqualTo(new QuotaDecision.KeyReused());
    QuotaDecision.Allowed third = (QuotaDecision.Allowed) decided.get(6);
    assertThat(third.consumedCount()).isEqualTo(3);
    assertThat(third.windowStartedAtMs()).isEqualTo(first.windowStartedAtMs());
    assertThat(decided.get(7)).isInstanceOf(QuotaDecision.Rejected.class);
    assertThat(decided.get(8)).isInstanceOf(QuotaDecision.Rejected.class);
    StoreFixture.BucketRow row = fixture.readBucket(k).orElseThrow();
    assertThat(row.receiptIds()).containsExactly("a", "b", "c");
    assertThat(row.consumedCount()).isEqualTo(3);
    assertThat(fixture.readBucket(shortWindow).orElseThrow().receiptIds()).containsExactly("x");
  }

  private static long replayNow(List<QuotaDecision> decided) {
    return ((QuotaDecision.Replayed) decided.get(4)).databaseNowMs();
  }

  /**
   * The batch statement resolves each request's limit on its own (limits as data): a user's
   * override, a Project's policy with a shadow limit, and the default, in one statement.
   */
  @Test
  void oneBatchResolvesEachRequestsLimitOnItsOwn() throws Exception {
    String project = unique("prj");
    ManagementQuotaStore writer = fixture.quotaStore(fixture.newDataSource());
    writer.putLimits(
        project,
        null,
        new QuotaLimits(Map.of(QuotaOperation.PROPOSE, 3), Map.of(QuotaOperation.PROPOSE, 1)),
        "root");
    writer.putLimits(
        project, "ann", new QuotaLimits(Map.of(QuotaOperation.PROPOSE, 1), Map.of()), "root");
    Gate gate = new Gate(fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2));
    FaultyDataSource counting = new FaultyDataSource(gate);
    ManagementQuotaStore store =
        new JdbcManagementQuotaStore(
            counting, PostgresDialect.INSTANCE, new Coalescing(1, 64, Duration.ofSeconds(30)));
    QuotaKey ann = QuotaKey.user(project, "ann", QuotaOperation.PROPOSE);
    QuotaKey ben = QuotaKey.user(project, "ben", QuotaOperation.PROPOSE);
    QuotaKey elsewhere = QuotaKey.user(unique("prj"), "ann", QuotaOperation.PROPOSE);
    List<QuotaDecision> decided =
        inOneBatch(
            store,
            gate,
            counting,
            key(QuotaOperation.INSPECT),
            List.of(
                new Ask(ann, "a1", SAME, 30, WINDOW),
                new Ask(ben, "b1", SAME, 30, WINDOW),
                new Ask(elsewhere, "e1", SAME, 30, WINDOW),
                new Ask(ann, "a2", SAME, 30, WINDOW),
                new Ask(ben, "b2", SAME, 30, WINDOW)));
    // Rounds {ann, ben, elsewhere} and {ann, ben}: two statements for five decisions.
    assertThat(lastBatchStatements).isEqualTo(2);
    EffectiveLimit users = new EffectiveLimit(1, LimitSource.USER, 1);
    EffectiveLimit projects = new EffectiveLimit(3, LimitSource.PROJECT, 1);
    assertThat(((QuotaDecision.Allowed) decided.get(0)).limit()).isEqualTo(users);
    assertThat(((QuotaDecision.Allowed) decided.get(1)).limit()).isEqualTo(projects);
    assertThat(((QuotaDecision.Allowed) decided.get(2)).limit())
        .isEqualTo(EffectiveLimit.defaultLimit(30));
    assertThat(((QuotaDecision.Rejected) decided.get(3)).limit()).isEqualTo(users);
    QuotaDecision.Allowed bensSecond = (QuotaDecision.Allowed) decided.get(4);
    assertThat(bensSecond.limit()).isEqualTo(projects);
    // Over the Project's shadow limit of 1: admitted, and reported as a shadow refusal.
    assertThat(bensSecond.shadowRejected()).isTrue();
    assertThat(((QuotaDecision.Allowed) decided.get(1)).shadowRejected()).isFalse();
  }

  @Test
  void batchedOutcomesEqualWhatDecidingAloneGives() throws Exception {
    Gate gate = new Gate(fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2));
    FaultyDataSource counting = new FaultyDataSource(gate);
    ManagementQuotaStore batched =
        new JdbcManagementQuotaStore(
            counting, PostgresDialect.INSTANCE, new Coalescing(1, 64, Duration.ofSeconds(30)));
    // Set-up and the one-by-one twin on separate instances: the set-up's fast path remembers full
    // buckets whose windows the test then moves.
    ManagementQuotaStore setup =
        new JdbcManagementQuotaStore(
            fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1),
            PostgresDialect.INSTANCE,
            Coalescing.OFF);
    ManagementQuotaStore alone =
        new JdbcManagementQuotaStore(
            fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1),
            PostgresDialect.INSTANCE,
            Coalescing.OFF);
    // Twins: the same buckets twice, the same past, the same window starts; one twin decided in
    // one batch, the other one decision at a time.
    long now = fixture.databaseNowMs();
    Duration twoMinutes = Duration.ofMinutes(2);
    Duration oneSecond = Duration.ofSeconds(1);
    List<List<Ask>> twins = new ArrayList<>();
    List<long[]> bounds = new ArrayList<>();
    for (int twin = 0; twin < 2; twin++) {
      QuotaKey full = key(QuotaOperation.INSPECT);
      QuotaKey fullLong = key(QuotaOperation.PROPOSE);
      QuotaKey open = key(QuotaOperation.INSPECT);
      QuotaKey ended = key(QuotaOperation.INSPECT);
      for (Ask ask :
          List.of(
              new Ask(full, "p1", SAME, 2, WINDOW),
              new Ask(full, "p2", SAME, 2, WINDOW),
              new Ask(fullLong, "p1", SAME, 1, twoMinutes),
              new Ask(open, "p1", SAME, 5, WINDOW),
              new Ask(ended, "p1", SAME, 1, oneSecond))) {
        ask.on(setup);
      }
      fixture.setWindowStart(full, now - 95_300);
      fixture.setWindowStart(fullLong, now - 17_700);
      fixture.setWindowStart(open, now - 1_000);
      fixture.setWindowStart(ended, now - 5_000);
      twins.add(
          List.of(
              new Ask(full, "new", SAME, 2, Duration.ofMinutes(5)),
              new Ask(fullLong, "new", SAME, 1, twoMinutes),
              new Ask(open, "p1", SAME, 5, WINDOW),
              new Ask(open, "n1", SAME, 5, WINDOW),
              new Ask(full, "p1", OTHER, 2, Duration.ofMinutes(5)),
              new Ask(ended, "n1", SAME, 1, oneSecond)));
    }
    long before = fixture.databaseNowMs();
    List<QuotaDecision> inBatch =
        inOneBatch(batched, gate, counting, key(QuotaOperation.INSPECT), twins.get(0));
    List<QuotaDecision> oneByOne = new ArrayList<>();
    for (Ask ask : twins.get(1)) {
      oneByOne.add(ask.on(alone));
    }
    long after = fixture.databaseNowMs();
    bounds.add(new long[] {before, after});

    // Rounds: {full, fullLong, open:p1, ended}, {open:n1, full:p1'}.
    assertThat(lastBatchStatements).isEqualTo(2);
    assertThat(inBatch).hasSameSizeAs(oneByOne);
    for (int i = 0; i < inBatch.size(); i++) {
      QuotaDecision b = inBatch.get(i);
      QuotaDecision s = oneByOne.get(i);
      assertThat(b.getClass()).as("request %d", i).isEqualTo(s.getClass());
    }
    // Refusals: Retry-After from the same window end on the database clock, within the run.
    long[] bound = bounds.get(0);
    for (int i : new int[] {0, 1}) {
      Ask ask = twins.get(0).get(i);
      long start = fixture.readBucket(ask.key()).orElseThrow().windowStartedAtMs();
      long lo = retryAfter(start, ask.w(), bound[1]);
      long hi = retryAfter(start, ask.w(), bound[0]);
      assertThat(((QuotaDecision.Rejected) inBatch.get(i)).retryAfterSeconds()).isBetween(lo, hi);
      assertThat(((QuotaDecision.Rejected) oneByOne.get(i)).retryAfterSeconds()).isBetween(lo, hi);
    }
    assertThat(retryAfter(now - 95_300, Duration.ofMinutes(5), bound[0]))
        .isGreaterThan(retryAfter(now - 17_700, twoMinutes, bound[0]));
    // Replays and admissions: the same window and count; the ended window restarted at the
    // statement's clock.
    QuotaDecision.Replayed replayB = (QuotaDecision.Replayed) inBatch.get(2);
    QuotaDecision.Replayed replayS = (QuotaDecision.Replayed) oneByOne.get(2);
    assertThat(replayB.windowStartedAtMs()).isEqualTo(now - 1_000);
    assertThat(replayS.windowStartedAtMs()).isEqualTo(now - 1_000);
    assertThat(replayB.consumedCount()).isEqualTo(replayS.consumedCount()).isEqualTo(1);
    QuotaDecision.Allowed admitB = (QuotaDecision.Allowed) inBatch.get(3);
    QuotaDecision.Allowed admitS = (QuotaDecision.Allowed) oneByOne.get(3);
    assertThat(admitB.windowStartedAtMs()).isEqualTo(now - 1_000);
    assertThat(admitS.windowStartedAtMs()).isEqualTo(now - 1_000);
    assertThat(admitB.consumedCount()).isEqualTo(admitS.consumedCount()).isEqualTo(2);
    assertThat(inBatch.get(4)).isEqualTo(new QuotaDecision.KeyReused());
    assertThat(oneByOne.get(4)).isEqualTo(new QuotaDecision.KeyReused());
    QuotaDecision.Allowed restartB = (QuotaDecision.Allowed) inBatch.get(5);
    QuotaDecision.Allowed restartS = (QuotaDecision.Allowed) oneByOne.get(5);
    assertThat(restartB.consumedCount()).isEqualTo(restartS.consumedCount()).isEqualTo(1);
    assertThat(restartB.windowStartedAtMs()).isEqualTo(restartB.databaseNowMs());
    assertThat(restartS.windowStartedAtMs()).isEqualTo(restartS.databaseNowMs());
    // One statement, one clock: every admission of the first round decided on the same now.
    assertThat(replayB.databaseNowMs()).isEqualTo(restartB.databaseNowMs());
  }

  @Test
  void aFailingBatchFailsEveryOneOfItsCallersAndTheNextBatchWorks() throws Exception {
    Gate gate = new Gate(fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2));
    FaultyDataSource counting = new FaultyDataSource(gate);
    ManagementQuotaStore store =
        new JdbcManagementQuotaStore(
            counting, PostgresDialect.INSTANCE, new Coalescing(1, 64, Duration.ofSeconds(30)));
    QuotaKey k = key(QuotaOperation.INSPECT);
    QuotaKey other = key(QuotaOperation.PROPOSE);
    List<Ask> failing =
        List.of(
            new Ask(k, "f1", SAME, 10, WINDOW),
            new Ask(other, "f2", SAME, 10, WINDOW),
            new Ask(k, "f3", SAME, 10, WINDOW),
            new Ask(other, "f4", SAME, 10, WINDOW));
    gate.failNextBatch();
    List<Object> outcomes = inOneBatchOutcomes(store, gate, key(QuotaOperation.INSPECT), failing);
    for (Object outcome : outcomes) {
      assertThat(outcome).isInstanceOf(StoreUnavailableException.class);
    }
    assertThat(fixture.readBucket(k)).isEmpty();
    assertThat(fixture.readBucket(other)).isEmpty();

    List<QuotaDecision> next =
        inOneBatch(
            store,
            gate,
            counting,
            key(QuotaOperation.INSPECT),
            List.of(
                new Ask(k, "f1", SAME, 10, WINDOW),
                new Ask(other, "f2", SAME, 10, WINDOW),
                new Ask(k, "f3", SAME, 10, WINDOW)));
    assertThat(next).allSatisfy(d -> assertThat(d).isInstanceOf(QuotaDecision.Allowed.class));
    assertThat(fixture.readBucket(k).orElseThrow().receiptIds()).containsExactly("f1", "f3");
    assertThat(fixture.readBucket(other).orElseThrow().receiptIds()).containsExactly("f2");
  }

  @Test
  void aQueuedCallerThatIsInterruptedLeavesWithStoreUnavailableAndTheBatchGoesOn()
      throws Exception {
    Gate gate = new Gate(fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 2));
    ManagementQuotaStore store =
        new JdbcManagementQuotaStore(
            gate, PostgresDialect.INSTANCE, new Coalescing(1, 64, Duration.ofSeconds(30)));
    QuotaKey k = key(QuotaOperation.INSPECT);
    gate.close();
    Caller leader =
        Caller.start(() -> store.consume(key(QuotaOperation.INSPECT), r("l"), SAME, 5, WINDOW));
    gate.awaitHeld();
    Caller interrupted = Caller.start(() -> store.consume(k, r("i"), SAME, 5, WINDOW));
    Caller queued = Caller.start(() -> store.consume(k, r("q"), SAME, 5, WINDOW));
    awaitQueued(interrupted, queued);
    interrupted.thread.interrupt();
    assertThatThrownBy(interrupted::get)
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(StoreUnavailableException.class);
    assertThat(interrupted.interruptedAtEnd).isTrue();
    gate.open();
    assertThat(leader.get()).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(queued.get()).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(fixture.readBucket(k).orElseThrow().receiptIds()).containsExactly("q");
  }

  @Test
  void aLeaderThatArrivesInterruptedDecidesItsWholeBatchAndKeepsItsInterruptStatus()
      throws Exception {
    // One connection, held by the test: the leader has to wait for it in the pool, where an
    // interrupted thread would fail at once (and with it every request of its batch).
    DataSource pool = fixture.rolePool(PostgresLogins.PACKAGE_MANAGER, 1);
    ManagementQuotaStore store =
        new JdbcManagementQuotaStore(
            pool, PostgresDialect.INSTANCE, new Coalescing(1, 64, Duration.ofSeconds(30)));
    QuotaKey k = key(QuotaOperation.INSPECT);
    Caller leader;
    List<Caller> followers = new ArrayList<>();
    try (Connection held = pool.getConnection()) {
      leader =
          Caller.start(
              () -> {
                Thread.currentThread().interrupt();
                return store.consume(k, r("leader"), SAME, 10, WINDOW);
              });
      awaitQueued(leader);
      for (String id : List.of("f1", "f2", "f3")) {
        Caller c = Caller.start(() -> store.consume(k, r(id), SAME, 10, WINDOW));
        awaitQueued(c);
        followers.add(c);
      }
      assertThat(held.isValid(1)).isTrue();
    }
    assertThat(leader.get()).isInstanceOf(QuotaDecision.Allowed.class);
    assertThat(leader.interruptedAtEnd).isTrue();
    for (Caller c : followers) {
      assertThat(c.get()).isInstanceOf(QuotaDecision.Allowed.class);
      assertThat(c.interruptedAtEnd).isFalse();
    }
    assertThat(fixture.readBucket(k).orElseThrow().receiptIds())
        .containsExactlyInAnyOrder("leader", "f1", "f2", "f3");
  }

  // --- helpers

  /**
   * Decides {@code batch} in one batch: a leader (on {@code leaderKey}) takes a connection and is
   * held at the gate; the batch's callers start one by one, in order, each queued before the next
   * starts; the gate opens, the leader decides alone and hands over to the first of them, which
   * decides all of them.
   */
  private List<QuotaDecision> inOneBatch(
      ManagementQuotaStore store,
      Gate gate,
      FaultyDataSource counting,
      QuotaKey leaderKey,
      List<Ask> batch)
      throws Exception {
    int before = counting.statements();
    List<Object> outcomes = inOneBatchOutcomes(store, gate, leaderKey, batch);
    lastBatchStatements = counting.statements() - before - 1;
    List<QuotaDecision> decisions = new ArrayList<>();
    for (Object outcome : outcomes) {
      if (outcome instanceof Throwable t) {
        throw new AssertionError("a batched decision failed", t);
      }
      decisions.add((QuotaDecision) outcome);
    }
    return decisions;
  }

  private List<Object> inOneBatchOutcomes(
      ManagementQuotaStore store, Gate gate, QuotaKey leaderKey, List<Ask> batch) throws Exception {
    gate.close();
    Caller leader = Caller.start(() -> store.consume(leaderKey, r("leader"), SAME, 1000, WINDOW));
    gate.awaitHeld();
    List<Caller> callers = new ArrayList<>();
    for (Ask ask : batch) {
      Caller c = Caller.start(() -> ask.on(store));
      awaitQueued(c);
      callers.add(c);
    }
    gate.open();
    assertThat(leader.get()).isInstanceOf(QuotaDecision.Allowed.class);
    List<Object> outcomes = new ArrayList<>();
    for (Caller c : callers) {
      try {
        outcomes.add(c.get());
      } catch (ExecutionException e) {
        outcomes.add(e.getCause());
      }
    }
    return outcomes;
  }

  /** Waits until each caller waits in the queue (a timed wait: the leader waits untimed). */
  private static void awaitQueued(Caller... callers) throws InterruptedException {
    for (Caller c : callers) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (c.thread.getState() != Thread.State.TIMED_WAITING) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("caller never queued: " + c.thread.getState());
        }
        Thread.sleep(1);
      }
    }
  }

  private static long retryAfter(long windowStartedAtMs, Duration window, long nowMs) {
    long remaining = Math.min(windowStartedAtMs + window.toMillis() - nowMs, window.toMillis());
    return Math.max(1, (remaining + 999) / 1000);
  }

  private static int runAll(List<FutureTask<Integer>> tasks, CountDownLatch start)
      throws Exception {
    List<Thread> threads = new ArrayList<>();
    for (FutureTask<Integer> task : tasks) {
      Thread t = new Thread(task);
      t.start();
      threads.add(t);
    }
    start.countDown();
    int total = 0;
    for (FutureTask<Integer> task : tasks) {
      total += task.get(5, TimeUnit.MINUTES);
    }
    for (Thread t : threads) {
      t.join();
    }
    return total;
  }

  /** A decision on a thread of its own. */
  private static final class Caller {
    final FutureTask<QuotaDecision> task;
    final Thread thread;
    volatile boolean interruptedAtEnd;

    private Caller(Callable<QuotaDecision> call) {
      this.task =
          new FutureTask<>(
              () -> {
                try {
                  return call.call();
                } finally {
                  interruptedAtEnd = Thread.currentThread().isInterrupted();
                }
              });
      this.thread = new Thread(task);
    }

    static Caller start(Callable<QuotaDecision> call) {
      Caller c = new Caller(call);
      c.thread.start();
      return c;
    }

    QuotaDecision get() throws Exception {
      QuotaDecision d = task.get(1, TimeUnit.MINUTES);
      thread.join();
      return d;
    }
  }

  /**
   * Holds the first connection taken after {@link #close} until {@link #open}; after {@link
   * #failNextBatch}, the connection taken after the held one fails every statement.
   */
  private static final class Gate extends InterceptingDataSource {
    private volatile CountDownLatch open = new CountDownLatch(0);
    private volatile CountDownLatch held = new CountDownLatch(0);
    private volatile boolean holdNext;
    private volatile boolean failAfterHeld;
    private volatile boolean failNext;

    /** Set by beforeConnection on the thread taking the connection that is to fail. */
    private final ThreadLocal<Boolean> failThisOne = ThreadLocal.withInitial(() -> false);

    private final Set<Connection> failing =
        Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

    Gate(DataSource delegate) {
      super(delegate);
    }

    void close() {
      open = new CountDownLatch(1);
      held = new CountDownLatch(1);
      holdNext = true;
    }

    void open() {
      open.countDown();
    }

    void failNextBatch() {
      failAfterHeld = true;
    }

    void awaitHeld() throws InterruptedException {
      assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
    }

    @Override
    protected void beforeConnection() throws SQLException {
      if (holdNext) {
        holdNext = false;
        held.countDown();
        try {
          open.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SQLException("interrupted at the gate", e);
        }
        if (failAfterHeld) {
          failAfterHeld = false;
          failNext = true;
        }
        return;
      }
      if (failNext) {
        failNext = false;
        failThisOne.set(true);
      }
    }

    @Override
    protected void afterConnection(Connection connection) {
      if (failThisOne.get()) {
        failThisOne.remove();
        failing.add(connection);
      }
    }

    @Override
    protected Object aroundConnectionCall(Connection connection, Method method, Call call)
        throws Throwable {
      if (method.getName().startsWith("prepare") && failing.contains(connection)) {
        throw new SQLException("simulated: statement failed", "08006");
      }
      return call.proceed();
    }
  }
}
