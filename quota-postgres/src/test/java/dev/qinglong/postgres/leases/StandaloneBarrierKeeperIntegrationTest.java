package dev.qinglong.postgres.leases;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.gateway.lease.LeaseTimings;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The standalone barrier is kept in the background: re-taken after its session dies, taken over.
 */
class StandaloneBarrierKeeperIntegrationTest {
  private static final LeaseTimings FAST = PostgresDownloadLeaseIntegrationTest.FAST;
  private static final Duration PERIOD = Duration.ofMillis(200);

  private GatewayFixture db;

  @BeforeEach
  void setUp() {
    db = new GatewayFixture("keeper");
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  private long terminateBarrierSessions() {
    return (Long)
        db.queryOne(
            // Waits (up to 5 s) until the backend has exited and its locks are released.
            "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity"
                + " WHERE application_name = 'qinglong-download-lease' AND usename = 'ql3_reader'"
                + " AND datname = current_database()");
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("timed out").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void aBarrierWhoseSessionDiedIsRetakenOnANewSession() throws Exception {
    try (StandaloneBarrierKeeper keeper =
        StandaloneBarrierKeeper.start(db.reader(FAST), false, PERIOD)) {
      assertThat(keeper.state()).isEqualTo(StandaloneBarrierKeeper.State.HELD);
      String firstPid = barrierLockHolder();
      assertThat(terminateBarrierSessions()).isEqualTo(1L);
      // The background check notices and re-takes it on a new session: the exclusive barrier lock
      // is granted again, to a session other than the terminated one. (Waiting on the lock itself,
      // not on the keeper's state, which is stale until its next check.)
      await(
          () -> {
            String holder = barrierLockHolder();
            return !holder.isEmpty() && !holder.equals(firstPid) && keeper.held();
          });
      // Really held: another standalone process is kept out.
      try (StandaloneBarrierKeeper other =
          StandaloneBarrierKeeper.start(db.reader(FAST), false, Duration.ofHours(1))) {
        assertThat(other.state()).isEqualTo(StandaloneBarrierKeeper.State.HELD_ELSEWHERE);
      }
    }
  }

  /**
   * Waits until no session holds the mode-barrier advisory lock in any mode (PostgreSQL releases a
   * session's advisory locks only when its backend exits, which can be after the client's close or
   * {@code pg_terminate_backend} returned).
   */
  private void awaitBarrierFree() throws InterruptedException {
    await(() -> barrierLockHolders().isEmpty());
  }

  /** The pids holding the mode-barrier advisory lock in this database in any mode, or "". */
  private String barrierLockHolders() {
    Object pid =
        db.queryOne(
            "SELECT string_agg(l.pid::text, ',') FROM pg_locks l"
                + " JOIN pg_database d ON d.oid = l.database"
                + " WHERE l.locktype = 'advisory' AND l.granted"
                + " AND l.classid = "
                + GatewaySql.LOCK_CLASS
                + " AND l.objid = "
                + GatewaySql.MODE_BARRIER
                + " AND l.objsubid = 2 AND d.datname = current_database()");
    return pid == null ? "" : pid.toString();
  }

  /** The pid holding the exclusive mode-barrier advisory lock in this database, or "". */
  private String barrierLockHolder() {
    Object pid =
        db.queryOne(
            "SELECT string_agg(l.pid::text, ',') FROM pg_locks l"
                + " JOIN pg_database d ON d.oid = l.database"
                + " WHERE l.locktype = 'advisory' AND l.granted AND l.mode = 'ExclusiveLock'"
                + " AND l.classid = "
                + GatewaySql.LOCK_CLASS
                + " AND l.objid = "
                + GatewaySql.MODE_BARRIER
                + " AND l.objsubid = 2 AND d.datname = current_database()");
    return pid == null ? "" : pid.toString();
  }

  private String barrierPids() {
    Object pids =
        db.queryOne(
            "SELECT string_agg(pid::text, ',') FROM pg_stat_activity"
                + " WHERE application_name = 'qinglong-download-lease' AND usename = 'ql3_reader'"
                + " AND datname = current_database()");
    return pids == null ? "" : pids.toString();
  }

  @Test
  void aManualCheckAfterTheSessionDiedRetakesIt() throws Exception {
    try (StandaloneBarrierKeeper keeper =
        StandaloneBarrierKeeper.start(db.reader(FAST), false, Duration.ofHours(1))) {
      assertThat(terminateBarrierSessions()).isEqualTo(1L);
      // pg_terminate_backend's wait is bounded: make sure the lock really is free before the check.
      awaitBarrierFree();
      keeper.check();
      assertThat(keeper.state()).isEqualTo(StandaloneBarrierKeeper.State.HELD);
      assertThat(barrierPids()).isNotEmpty();
    }
  }

  @Test
  void whileTheBarrierCannotBeRetakenTheProcessDoesNotServe() throws Exception {
    try (StandaloneBarrierKeeper keeper =
        StandaloneBarrierKeeper.start(db.reader(FAST), false, Duration.ofHours(1))) {
      // Someone else (another standalone process) gets in between the death and the re-take.
      assertThat(terminateBarrierSessions()).isEqualTo(1L);
      awaitBarrierFree();
      String intruderPid;
      try (PostgresStandaloneDownloadBarrier intruder =
          PostgresStandaloneDownloadBarrier.acquire(db.reader(FAST), false)) {
        intruderPid = barrierLockHolder();
        assertThat(intruderPid).isNotEmpty();
        keeper.check();
        assertThat(keeper.state()).isEqualTo(StandaloneBarrierKeeper.State.HELD_ELSEWHERE);
        assertThat(keeper.held()).isFalse();
        // Still held elsewhere: the keeper's failed attempt did not take it from the intruder.
        assertThat(barrierLockHolder()).isEqualTo(intruderPid);
      }
      // Closing the intruder's connection returns before its backend has exited and released the
      // lock: wait for the server to release it (the condition itself), not for a while.
      awaitBarrierFree();
      keeper.check();
      assertThat(keeper.state()).isEqualTo(StandaloneBarrierKeeper.State.HELD);
      String keeperPid = barrierLockHolder();
      assertThat(keeperPid).isNotEmpty().isNotEqualTo(intruderPid);
    }
  }

  @Test
  void aProcessThatStartedWithoutTheBarrierTakesItOverWhenTheHolderStops() throws Exception {
    StandaloneBarrierKeeper first = StandaloneBarrierKeeper.start(db.reader(FAST), false, PERIOD);
    try (StandaloneBarrierKeeper second =
        StandaloneBarrierKeeper.start(db.reader(FAST), false, PERIOD)) {
      assertThat(first.held()).isTrue();
      assertThat(second.state()).isEqualTo(StandaloneBarrierKeeper.State.HELD_ELSEWHERE);
      first.close();
      await(second::held);
    }
  }
}
