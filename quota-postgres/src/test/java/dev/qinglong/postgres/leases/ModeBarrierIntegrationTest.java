package dev.qinglong.postgres.leases;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.gateway.lease.LeaseClock;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.LeaseState;
import dev.qinglong.gateway.lease.LeaseTimings;
import dev.qinglong.gateway.lease.ModeConflictException;
import dev.qinglong.gateway.lease.StandaloneBarrierHeldException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Standalone and shared downloads never mix, and a stored policy keeps standalone out. */
class ModeBarrierIntegrationTest {
  private static final LeaseTimings FAST = PostgresDownloadLeaseIntegrationTest.FAST;

  private GatewayFixture db;

  @BeforeEach
  void setUp() {
    db = new GatewayFixture("barrier");
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  private PostgresDownloadLease shared(int slot) {
    return PostgresDownloadLease.start(
        db.reader(FAST),
        PostgresDownloadLeaseIntegrationTest.POLICY,
        slot,
        FAST,
        LeaseClock.SYSTEM,
        LeaseListener.NONE);
  }

  @Test
  void aStandaloneProcessKeepsSharedGatewaysOut() {
    try (PostgresStandaloneDownloadBarrier standalone =
        PostgresStandaloneDownloadBarrier.acquire(db.reader(FAST), false)) {
      assertThat(standalone.isHeld()).isTrue();
      assertThatThrownBy(() -> shared(0))
          .isInstanceOf(ModeConflictException.class)
          .hasMessageContaining("standalone");
      // Refused before anything was stored.
      assertThat(db.queryOne("SELECT count(*) FROM qinglong.download_policy")).isEqualTo(0L);
      // A second standalone process does not get it either (standalone means the only download
      // server), and is told apart from a mode conflict: it starts without downloads.
      assertThatThrownBy(() -> PostgresStandaloneDownloadBarrier.acquire(db.reader(FAST), false))
          .isInstanceOf(StandaloneBarrierHeldException.class)
          .isNotInstanceOf(ModeConflictException.class);
    }
    // Released with its session: now shared gateways may start.
    try (PostgresDownloadLease lease = shared(0)) {
      assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
    }
  }

  @Test
  void sharedGatewaysKeepAStandaloneProcessOut() {
    try (PostgresDownloadLease zero = shared(0);
        PostgresDownloadLease one = shared(1)) {
      // Several shared gateways hold the barrier together.
      assertThat(one.state()).isEqualTo(LeaseState.ACTIVE);
      assertThatThrownBy(() -> PostgresStandaloneDownloadBarrier.acquire(db.reader(FAST), true))
          .isInstanceOf(ModeConflictException.class)
          .hasMessageContaining("shared gateways");
    }
  }

  @Test
  void aStoredSharedPolicyKeepsStandaloneOutUnlessDeliberatelyOverridden() {
    // Shared gateways ran once and are gone; their policy stays.
    shared(0).close();
    assertThatThrownBy(() -> PostgresStandaloneDownloadBarrier.acquire(db.reader(FAST), false))
        .isInstanceOf(ModeConflictException.class)
        .hasMessageContaining("whole budget");
    try (PostgresStandaloneDownloadBarrier overridden =
        PostgresStandaloneDownloadBarrier.acquire(db.reader(FAST), true)) {
      assertThat(overridden.isHeld()).isTrue();
    }
  }

  @Test
  void theBarrierIsGoneWhenItsSessionDies() {
    PostgresStandaloneDownloadBarrier standalone =
        PostgresStandaloneDownloadBarrier.acquire(db.reader(FAST), false);
    db.queryOne(
        // The second argument waits until the backend has exited (and its locks are released).
        "SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity"
            + " WHERE application_name = 'qinglong-download-lease' AND usename = 'ql3_reader'"
            + " AND datname = current_database()");
    assertThat(standalone.isHeld()).isFalse();
    standalone.close();
    try (PostgresDownloadLease lease = shared(0)) {
      assertThat(lease.mayServe()).isTrue();
    }
  }
}
