package dev.qinglong.postgres.leases;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.gateway.lease.LeaseClock;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.StoredLeases;
import java.sql.Connection;
import java.sql.Timestamp;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The operator's listing of the stored policy and slot leases, on a real PostgreSQL. */
class PostgresStoredLeasesIntegrationTest {
  private GatewayFixture db;

  @BeforeEach
  void setUp() {
    db = new GatewayFixture("stored_leases");
  }

  @AfterEach
  void tearDown() throws Exception {
    db.close();
  }

  @Test
  void withoutPolicyNothingIsListed() throws Exception {
    try (Connection c = db.reader(PostgresDownloadLeaseIntegrationTest.FAST).open()) {
      StoredLeases stored = PostgresStoredLeases.read(c);
      assertThat(stored.policy()).isNull();
      assertThat(stored.slots()).isEmpty();
      assertThat(stored.databaseNow()).isNotNull();
    }
  }

  @Test
  void listsHeldExpiredAndFreeSlotsOnTheDatabaseClock() throws Exception {
    var timings = PostgresDownloadLeaseIntegrationTest.FAST;
    try (PostgresDownloadLease held =
            PostgresDownloadLease.start(
                db.reader(timings),
                PostgresDownloadLeaseIntegrationTest.POLICY,
                0,
                timings,
                LeaseClock.SYSTEM,
                LeaseListener.NONE);
        PostgresDownloadLease expired =
            PostgresDownloadLease.start(
                db.reader(timings),
                PostgresDownloadLeaseIntegrationTest.POLICY,
                2,
                timings,
                LeaseClock.SYSTEM,
                LeaseListener.NONE)) {
      expired.close();
      db.execute(
          "UPDATE qinglong.download_slot_leases SET renewed_at = acquired_at,"
              + " expires_at = acquired_at + interval '1 microsecond' WHERE slot = 2");
      Timestamp heldExpiry =
          (Timestamp)
              db.queryOne("SELECT expires_at FROM qinglong.download_slot_leases WHERE slot = 0");

      StoredLeases stored;
      try (Connection c = db.reader(timings).open()) {
        stored = PostgresStoredLeases.read(c);
      }

      assertThat(stored.policy()).isEqualTo(PostgresDownloadLeaseIntegrationTest.POLICY);
      assertThat(stored.slots())
          .extracting(StoredLeases.Slot::slot, StoredLeases.Slot::state)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(0, StoredLeases.State.HELD),
              org.assertj.core.groups.Tuple.tuple(1, StoredLeases.State.FREE),
              org.assertj.core.groups.Tuple.tuple(2, StoredLeases.State.EXPIRED));
      StoredLeases.Slot zero = stored.slots().get(0);
      assertThat(zero.generation()).isEqualTo(held.status().generation());
      // The listing reads the row a renewal may have moved since: at or after the earlier read.
      assertThat(zero.expiresAt()).isAfterOrEqualTo(heldExpiry.toInstant());
      assertThat(zero.expiresAt()).isAfter(stored.databaseNow());
      assertThat(stored.slots().get(1).generation()).isZero();
      assertThat(stored.slots().get(1).expiresAt()).isNull();
      assertThat(stored.slots().get(2).generation()).isEqualTo(1);
      assertThat(stored.slots().get(2).expiresAt()).isBefore(stored.databaseNow());
      assertThat(stored.databaseNow()).isBefore(Instant.now().plusSeconds(60));
    }
  }
}
