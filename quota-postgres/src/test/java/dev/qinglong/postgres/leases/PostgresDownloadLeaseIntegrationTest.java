package dev.qinglong.postgres.leases;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.gateway.governor.DownloadGovernor;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.DownloadsHaltedException;
import dev.qinglong.gateway.governor.GovernorListener;
import dev.qinglong.gateway.lease.LeaseClock;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.LeaseState;
import dev.qinglong.gateway.lease.LeaseTimings;
import dev.qinglong.gateway.lease.PolicyMismatchException;
import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import dev.qinglong.gateway.lease.SlotBusyException;
import dev.qinglong.testkit.TcpProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared-download lease against a real PostgreSQL, with real threads and a TCP proxy to cut or
 * slow the lease connection. Tests whose point is not the default timings use shorter ones (same
 * relations: window shorter than the database lease, four heartbeats per window); the restart, the
 * silent-database, the short-outage and the late-answer tests run on the defaults (10 s / 8 s / 2 s
 * / 15 s).
 */
class PostgresDownloadLeaseIntegrationTest {
  /** 3 s in the database, 2.4 s local window, 0.6 s heartbeat, 4 s stale wait. */
  static final LeaseTimings FAST =
      new LeaseTimings(
          Duration.ofMillis(3000),
          Duration.ofMillis(2400),
          Duration.ofMillis(600),
          Duration.ofMillis(4000));

  static final SharedDownloadPolicy POLICY = new SharedDownloadPolicy(1_000_000, 100_000, 3);

  private GatewayFixture db;
  private final List<AutoCloseable> toClose =
      java.util.Collections.synchronizedList(new ArrayList<>());

  @BeforeEach
  void setUp() {
    db = new GatewayFixture("lease");
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
    db.close();
  }

  private PostgresDownloadLease start(
      SharedDownloadPolicy policy,
      int slot,
      LeaseTimings timings,
      DedicatedConnectionFactory cf,
      LeaseListener listener) {
    PostgresDownloadLease lease =
        PostgresDownloadLease.start(cf, policy, slot, timings, LeaseClock.SYSTEM, listener);
    toClose.add(lease);
    return lease;
  }

  private PostgresDownloadLease start(int slot) {
    return start(POLICY, slot, FAST, db.reader(FAST), LeaseListener.NONE);
  }

  @Test
  void slotZeroStoresThePolicyAndEveryOtherSlotMustMatchIt() {
    PostgresDownloadLease zero = start(0);
    assertThat(db.queryOne("SELECT slots FROM qinglong.download_policy")).isEqualTo(3);
    assertThat(db.queryOne("SELECT rate_bytes_per_second FROM qinglong.download_policy"))
        .isEqualTo(1_000_000L);
    assertThat(db.queryOne("SELECT created_by_owner FROM qinglong.download_policy"))
        .isEqualTo(zero.owner());

    PostgresDownloadLease one = start(1);
    assertThat(one.state()).isEqualTo(LeaseState.ACTIVE);

    SharedDownloadPolicy otherRate = new SharedDownloadPolicy(2_000_000, 100_000, 3);
    assertThatThrownBy(() -> start(otherRate, 2, FAST, db.reader(FAST), LeaseListener.NONE))
        .isInstanceOf(PolicyMismatchException.class)
        .hasMessageContaining("rate-bytes-per-second=1000000")
        .hasMessageContaining("rate-bytes-per-second=2000000");
    SharedDownloadPolicy otherSlots = new SharedDownloadPolicy(1_000_000, 100_000, 4);
    assertThatThrownBy(() -> start(otherSlots, 3, FAST, db.reader(FAST), LeaseListener.NONE))
        .isInstanceOf(PolicyMismatchException.class);
    // Slot 0 never overwrites a stored policy either: changing it is an offline operation.
    zero.close();
    db.execute(
        "UPDATE qinglong.download_slot_leases SET expires_at = renewed_at + interval '1 microsecond'");
    assertThatThrownBy(() -> start(otherRate, 0, FAST, db.reader(FAST), LeaseListener.NONE))
        .isInstanceOf(PolicyMismatchException.class);
    assertThat(db.queryOne("SELECT rate_bytes_per_second FROM qinglong.download_policy"))
        .isEqualTo(1_000_000L);
    // A refused start leaves no half-held slot behind.
    assertThat(
            db.queryOne("SELECT count(*) FROM qinglong.download_slot_leases WHERE slot IN (2, 3)"))
        .isEqualTo(0L);
  }

  @Test
  void anotherSlotWaitsForSlotZeroToStoreThePolicy() throws Exception {
    // A stale wait no busy machine can outlast, and a clock that reports the start-up's first
    // pause: slot 1 has then read no policy and is waiting for it (not merely not yet started).
    LeaseTimings patient =
        new LeaseTimings(
            FAST.databaseLease(), FAST.localValidity(), FAST.heartbeat(), Duration.ofSeconds(120));
    java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(1);
    LeaseClock reporting =
        new LeaseClock() {
          @Override
          public long nanoTime() {
            return System.nanoTime();
          }

          @Override
          public long wallMillis() {
            return System.currentTimeMillis();
          }

          @Override
          public void sleep(Duration d) throws InterruptedException {
            waiting.countDown();
            LeaseClock.super.sleep(d);
          }
        };
    CompletableFuture<PostgresDownloadLease> one =
        CompletableFuture.supplyAsync(
            () -> {
              PostgresDownloadLease lease =
                  PostgresDownloadLease.start(
                      db.reader(patient), POLICY, 1, patient, reporting, LeaseListener.NONE);
              toClose.add(lease);
              return lease;
            });
    assertThat(waiting.await(60, TimeUnit.SECONDS)).as("slot 1 waits for the policy").isTrue();
    assertThat(one).isNotDone();
    start(0);
    assertThat(one.get(60, TimeUnit.SECONDS).state()).isEqualTo(LeaseState.ACTIVE);
  }

  @Test
  void anotherSlotRefusesToStartWithoutAPolicy() {
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> start(2))
        .isInstanceOf(PolicyMismatchException.class)
        .hasMessageContaining("start slot 0 first");
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(FAST.staleWait().toNanos());
  }

  @Test
  void eachSlotGetsTheFloorShareOfBothRates() {
    SharedDownloadPolicy policy = new SharedDownloadPolicy(1_000_001, 100_002, 3);
    PostgresDownloadLease lease = start(policy, 0, FAST, db.reader(FAST), LeaseListener.NONE);
    assertThat(lease.share()).isEqualTo(new DownloadRates(333_333, 33_334));
    assertThatThrownBy(() -> start(policy, 3, FAST, db.reader(FAST), LeaseListener.NONE))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aSecondOwnerOnALiveSlotIsRefusedAsBusy() {
    PostgresDownloadLease holder = start(0);
    // Seen renewing, not merely timed out: a reservation that only failed to expire within the
    // stale wait is refused as "still reserved" instead (aStaleReservationThatDoesNotExpire...).
    assertThatThrownBy(() -> start(0))
        .isInstanceOf(SlotBusyException.class)
        .hasMessageContaining("renews its lease")
        .hasMessageNotContaining("still reserved");
    assertThat(holder.mayServe()).isTrue();
    assertThat(holder.state()).isEqualTo(LeaseState.ACTIVE);
  }

  @Test
  void restartOfTheSameSlotWaitsForAStaleReservationAndTakesItWithTheDefaultTimings()
      throws Exception {
    LeaseTimings timings = LeaseTimings.DEFAULTS;
    PostgresDownloadLease stopped =
        start(POLICY, 0, timings, db.reader(timings), LeaseListener.NONE);
    long oldGeneration = stopped.generation();
    // A stopped process: no more renewals, the reservation stays (a shutdown keeps it).
    stopped.close();
    Timestamp oldExpiry =
        (Timestamp)
            db.queryOne("SELECT expires_at FROM qinglong.download_slot_leases WHERE slot = 0");

    // Had it not been taken within the stale wait, the start would have been refused
    // (SlotBusyException "still reserved"): that it returns is the bound on the wait.
    PostgresDownloadLease restarted =
        start(POLICY, 0, timings, db.reader(timings), LeaseListener.NONE);

    assertThat(restarted.generation()).isEqualTo(oldGeneration + 1);
    assertThat(restarted.mayServe()).isTrue();
    // Taken only after the old reservation expired, by the database clock.
    Timestamp acquiredAt =
        (Timestamp)
            db.queryOne("SELECT acquired_at FROM qinglong.download_slot_leases WHERE slot = 0");
    assertThat(acquiredAt).isAfterOrEqualTo(oldExpiry);
  }

  @Test
  void aStaleReservationThatDoesNotExpireInTimeIsRefused() {
    // A reservation far in the future that nobody renews: the wait is bounded by staleWait.
    db.execute(
        "INSERT INTO qinglong.download_policy VALUES (true, 1000000, 100000, 3, clock_timestamp(), gen_random_uuid())");
    db.execute(
        "INSERT INTO qinglong.download_slot_leases VALUES (1, gen_random_uuid(), 7, clock_timestamp(),"
            + " clock_timestamp(), clock_timestamp() + interval '1 hour')");
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> start(1))
        .isInstanceOf(SlotBusyException.class)
        .hasMessageContaining("still reserved");
    assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(FAST.staleWait().toNanos());
  }

  @Test
  void generationGoesUpWithEveryNewOwnerAndFencesStaleOwners() throws Exception {
    List<Long> generations = new ArrayList<>();
    List<UUID> owners = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      PostgresDownloadLease lease = start(0);
      generations.add(lease.generation());
      owners.add(lease.owner());
      lease.close();
      expireSlot(0);
    }
    assertThat(generations).containsExactly(1L, 2L, 3L);

    PostgresDownloadLease current = start(0);
    assertThat(current.generation()).isEqualTo(4L);
    // The renewal statement itself refuses an old generation or another owner, as ql3_reader.
    assertThat(renewAsReader(current.owner(), 3)).isZero();
    assertThat(renewAsReader(owners.get(2), 4)).isZero();
    assertThat(renewAsReader(current.owner(), 4)).isEqualTo(1);
  }

  @Test
  void aTakenOverOwnerIsRefusedOnItsNextRenewalAndLosesTheLease() throws Exception {
    RecordingLeaseListener events = new RecordingLeaseListener();
    PostgresDownloadLease old = start(POLICY, 0, FAST, db.reader(FAST), events);
    // Its reservation expires under it (e.g. its renewals were stuck) and a new owner takes over.
    expireSlot(0);
    PostgresDownloadLease successor = start(0);
    assertThat(successor.generation()).isEqualTo(old.generation() + 1);

    assertThat(events.awaitLost(60)).isTrue();
    assertThat(events.lossReason.get()).contains("refused");
    assertThat(old.state()).isEqualTo(LeaseState.LOST);
    assertThat(old.mayServe()).isFalse();
    assertThat(successor.mayServe()).isTrue();
  }

  @Test
  void aSilentDatabaseEndsServingWithinTheLocalWindowWithTheDefaultTimings() throws Exception {
    LeaseTimings timings = LeaseTimings.DEFAULTS;
    TcpProxy proxy = db.proxy();
    RecordingLeaseListener events = new RecordingLeaseListener();
    PostgresDownloadLease lease = start(POLICY, 0, timings, db.reader(timings, proxy), events);
    DownloadGovernor governor = new DownloadGovernor(lease.share(), lease, GovernorListener.NONE);
    governor.acquire("alice", 1000, Duration.ofSeconds(1));

    // Partition: the proxy keeps the sockets open but delivers nothing, so renewals hang.
    long cutAt = System.nanoTime();
    proxy.setSilent(true);
    awaitNotServing(lease);

    // Serving ends localValidity (8 s) after the start of the last renewal that succeeded, and
    // that renewal started before the cut: no window opened after it. Asserted on where the
    // lease's own clock put the window, not on when this thread happened to see it close.
    assertWindowStartedBefore(events, cutAt);
    assertThat(events.awaitLost(60)).isTrue();
    assertThat(events.lost.get()).isEqualTo(1);
    assertThat(events.lossReason.get()).contains("local validity expired");
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThatThrownBy(() -> governor.acquire("alice", 1, Duration.ofSeconds(1)))
        .isInstanceOf(DownloadsHaltedException.class);

    // The network comes back: loss is terminal, nothing is revived.
    proxy.setSilent(false);
    Thread.sleep(timings.heartbeat().toMillis() + 500);
    assertThat(lease.mayServe()).isFalse();
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(events.lost.get()).isEqualTo(1);
  }

  @Test
  void aCutConnectionIsRetriedThenTheLeaseIsLostAtTheEndOfTheWindow() throws Exception {
    TcpProxy proxy = db.proxy();
    RecordingLeaseListener events = new RecordingLeaseListener();
    PostgresDownloadLease lease = start(POLICY, 0, FAST, db.reader(FAST, proxy), events);

    long cutAt = System.nanoTime();
    proxy.cut(); // resets the lease connection and refuses new ones
    awaitNotServing(lease);
    // Its window ends localValidity after the last renewal that succeeded, which started before
    // the cut (recorded by the lease's clock on its own thread).
    assertWindowStartedBefore(events, cutAt);
    assertThat(events.awaitLost(60)).isTrue();
    // It did try to reconnect and renew while the window lasted.
    assertThat(lease.status().failedRenewals()).isGreaterThanOrEqualTo(1);
    proxy.heal();
    Thread.sleep(FAST.heartbeat().toMillis() * 2);
    assertThat(lease.mayServe()).isFalse();
  }

  @Test
  void aShortOutageWithinTheWindowIsSurvivedOnANewDedicatedConnectionWithTheDefaultTimings()
      throws Exception {
    // The defaults: after the heal, a new connection and a renewal must fit in what is left of the
    // window, which FAST's 2.4 s leaves about a second of on a busy machine; 8 s leave five.
    LeaseTimings timings = LeaseTimings.DEFAULTS;
    TcpProxy proxy = db.proxy();
    RecordingLeaseListener events = new RecordingLeaseListener();
    PostgresDownloadLease lease = start(POLICY, 0, timings, db.reader(timings, proxy), events);
    proxy.cut();
    // Until a renewal attempt has failed on the cut network (waited on the failure itself, not on
    // a heartbeat and a margin that a busy machine may not honour).
    awaitCondition("a renewal failed on the cut network", () -> events.failed.get() > 0);
    long cutAt = System.nanoTime();
    proxy.heal();
    // Survived: a renewal after the outage succeeded in time, on a new connection. (Waited on the
    // renewal; had the window run out first, the lease would be lost and this asserts it is not.)
    awaitCondition("a renewal after the outage", () -> events.windowStartNanos.get() - cutAt > 0);
    assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
    assertThat(events.lost.get()).isZero();
    long renewedBefore = lease.status().renewals();
    // It goes on renewing on its new connection for more than a whole window's worth of heartbeats
    // (waited on the renewals, not slept through), and stays active.
    long renewalsPerWindow = timings.localValidity().toMillis() / timings.heartbeat().toMillis();
    awaitCondition(
        "renewals go on",
        () -> {
          assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
          return lease.status().renewals() > renewedBefore + renewalsPerWindow;
        });
    assertThat(lease.status().renewals()).isGreaterThan(renewedBefore);
    assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
    assertThat(lease.mayServe()).isTrue();
    assertThat(events.failed.get()).isGreaterThanOrEqualTo(1);
    assertThat(events.lost.get()).isZero();
  }

  @Test
  void aLateRenewalAnswerDoesNotReviveTheExpiredOwnerWithTheDefaultTimings() throws Exception {
    LeaseTimings timings = LeaseTimings.DEFAULTS;
    TcpProxy proxy = db.proxy();
    RecordingLeaseListener events = new RecordingLeaseListener();
    PostgresDownloadLease lease = start(POLICY, 0, timings, db.reader(timings, proxy), events);
    Timestamp renewedBefore = renewedAt(0);

    // PostgreSQL answers 9 s late: the next renewal is applied in the database at once, but its
    // "ok" reaches the gateway after the 8 s window of the previous renewal has ended.
    proxy.setResponseLatency(Duration.ofSeconds(9));
    assertThat(events.awaitLost(60)).isTrue();
    assertThat(lease.mayServe()).isFalse();

    // Wait for the late answer itself.
    awaitCondition("late answer arrived", () -> lease.status().lateAnswers() > 0);
    // The database did say yes (it renewed the row), and still the owner stays expired.
    assertThat(renewedAt(0)).isAfter(renewedBefore);
    assertThat(lease.status().lateAnswers()).isEqualTo(1);
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(lease.mayServe()).isFalse();
    assertThat(events.lost.get()).isEqualTo(1);
  }

  @Test
  void closeStopsServingButLeavesTheReservationToExpire() {
    PostgresDownloadLease lease = start(0);
    lease.close();
    assertThat(lease.state()).isEqualTo(LeaseState.CLOSED);
    assertThat(lease.mayServe()).isFalse();
    assertThat(
            db.queryOne(
                "SELECT expires_at > clock_timestamp() FROM qinglong.download_slot_leases WHERE slot = 0"))
        .isEqualTo(true);
    lease.close(); // idempotent
  }

  /**
   * Polls {@code condition} until it holds. The 60 s bound only guards against a hang: it is far
   * beyond any timing under test, so a slow machine cannot trip it.
   */
  private static void awaitCondition(String what, java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what + " (waited 60 s)").isLessThan(until);
      Thread.sleep(20);
    }
  }

  private static void awaitNotServing(PostgresDownloadLease lease) throws InterruptedException {
    awaitCondition("lease stopped serving", () -> !lease.mayServe());
  }

  /**
   * The lease's window last started (acquisition or successful renewal, by the lease's clock)
   * before {@code cutAt}, so it closed no later than {@code localValidity} after the cut.
   */
  private static void assertWindowStartedBefore(RecordingLeaseListener events, long cutAt) {
    long windowStart = events.windowStartNanos.get();
    assertThat(windowStart).as("a window was opened").isNotZero();
    assertThat(cutAt - windowStart).as("last window started before the cut").isGreaterThan(0);
  }

  private void expireSlot(int slot) {
    db.execute(
        "UPDATE qinglong.download_slot_leases SET renewed_at = acquired_at,"
            + " expires_at = acquired_at + interval '1 microsecond' WHERE slot = "
            + slot);
  }

  private Timestamp renewedAt(int slot) {
    return (Timestamp)
        db.queryOne("SELECT renewed_at FROM qinglong.download_slot_leases WHERE slot = ?", slot);
  }

  private int renewAsReader(UUID owner, long generation) throws Exception {
    try (Connection c = db.reader(FAST).open();
        PreparedStatement ps = c.prepareStatement(GatewaySql.RENEW_SLOT)) {
      ps.setLong(1, FAST.databaseLease().toMillis());
      ps.setInt(2, 0);
      ps.setObject(3, owner);
      ps.setLong(4, generation);
      return ps.executeUpdate();
    }
  }
}
