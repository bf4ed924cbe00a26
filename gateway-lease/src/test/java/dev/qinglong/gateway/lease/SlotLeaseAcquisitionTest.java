package dev.qinglong.gateway.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The start-up protocol (barrier, policy, slot) on a fake clock over an in-memory storage, with the
 * default timings: waits cost no real time, and "how long did it wait" is exact.
 */
class SlotLeaseAcquisitionTest {
  private static final SharedDownloadPolicy POLICY = SlotLeaseRenewalTest.POLICY;
  private static final LeaseTimings T = LeaseTimings.DEFAULTS;

  private final FakeClock clock = new FakeClock();
  private final FakeLeaseStorage storage = new FakeLeaseStorage(clock);

  private SlotLease lease(SharedDownloadPolicy policy, int slot) {
    return new SlotLease(storage, policy, slot, T, clock, LeaseListener.NONE);
  }

  private SlotLease acquired(int slot) {
    SlotLease lease = lease(POLICY, slot);
    lease.acquire();
    return lease;
  }

  @Test
  void slotZeroStoresThePolicyAndTakesAFreeSlotAtGenerationOne() {
    SlotLease lease = acquired(0);
    assertThat(storage.policy).isEqualTo(POLICY);
    assertThat(storage.policyCreator).isEqualTo(lease.owner());
    assertThat(lease.generation()).isEqualTo(1);
    assertThat(storage.row(0).owner()).isEqualTo(lease.owner());
    assertThat(storage.row(0).expiresAt() - storage.now()).isEqualTo(T.databaseLease().toNanos());
    assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
    assertThat(lease.mayServe()).isTrue();
    assertThat(lease.share()).isEqualTo(POLICY.share());
  }

  @Test
  void theFirstWindowRunsFromTheStartOfTheAcquisitionRequest() {
    storage.acquireDelay = Duration.ofSeconds(3); // the "ok" arrives 3 s after the request left
    SlotLease lease = acquired(0);
    clock.tick(Duration.ofMillis(4999)); // 7.999 s after the start of the request
    assertThat(lease.mayServe()).isTrue();
    clock.tick(Duration.ofMillis(1)); // 8 s after the start, only 5 s after the answer
    assertThat(lease.mayServe()).isFalse();
  }

  @Test
  void anAcquisitionAnswerAfterTheWholeWindowIsRefused() {
    storage.acquireDelay = T.localValidity();
    SlotLease lease = lease(POLICY, 0);
    assertThatThrownBy(lease::acquire)
        .isInstanceOf(LeaseLostException.class)
        .hasMessageContaining("after the whole local validity window");
    assertRefused(lease);
  }

  @Test
  void aStandaloneProcessOnTheBarrierRefusesTheStart() {
    storage.standaloneHoldsBarrier = true;
    SlotLease lease = lease(POLICY, 0);
    assertThatThrownBy(lease::acquire)
        .isInstanceOf(ModeConflictException.class)
        .hasMessageContaining("standalone");
    assertRefused(lease);
    assertThat(storage.row(0)).isNull();
  }

  @Test
  void aDifferentStoredPolicyRefusesEverySlotAndIsNeverOverwritten() {
    SharedDownloadPolicy other = new SharedDownloadPolicy(2_000_000, 100_000, 3);
    storage.policy = POLICY;
    for (int slot = 0; slot < 3; slot++) {
      SlotLease lease = lease(other, slot);
      assertThatThrownBy(lease::acquire)
          .isInstanceOf(PolicyMismatchException.class)
          .hasMessageContaining("rate-bytes-per-second=1000000")
          .hasMessageContaining("rate-bytes-per-second=2000000");
      assertRefused(lease);
      storage.closed = false;
    }
    assertThat(storage.policy).isEqualTo(POLICY);
    assertThat(storage.row(0)).isNull(); // a refused start leaves no half-held slot
  }

  @Test
  void anotherSlotWaitsForSlotZeroToStoreThePolicy() {
    storage.beforePolicyRead =
        () -> {
          if (storage.policyReads == 3) {
            storage.policy = POLICY; // slot 0 came up meanwhile
          }
        };
    long t0 = clock.nanoTime();
    SlotLease lease = acquired(1);
    assertThat(lease.mayServe()).isTrue();
    assertThat(storage.policyCreator).isNull(); // slot 1 never stores a policy
    assertThat(clock.nanoTime() - t0).isEqualTo(T.stalePoll().multipliedBy(3).toNanos());
  }

  @Test
  void anotherSlotRefusesToStartWhenNoPolicyAppearsWithinTheStaleWait() {
    long t0 = clock.nanoTime();
    SlotLease lease = lease(POLICY, 2);
    assertThatThrownBy(lease::acquire)
        .isInstanceOf(PolicyMismatchException.class)
        .hasMessageContaining("start slot 0 first");
    assertThat(clock.nanoTime() - t0).isGreaterThanOrEqualTo(T.staleWait().toNanos());
    assertThat(storage.policy).isNull();
    assertRefused(lease);
  }

  @Test
  void aRenewingHolderIsRefusedAsBusyWithinAboutOneHeartbeat() {
    storage.policy = POLICY;
    UUID holder = UUID.randomUUID();
    storage.reserve(0, holder, 5, T.databaseLease());
    long[] nextRenewal = {storage.now() + T.heartbeat().toNanos()};
    storage.beforeHolderRead =
        () -> {
          if (storage.now() >= nextRenewal[0]) { // the live holder renews every heartbeat
            storage.renewAsHolder(0, T.databaseLease());
            nextRenewal[0] += T.heartbeat().toNanos();
          }
        };
    long t0 = clock.nanoTime();
    SlotLease lease = lease(POLICY, 0);
    assertThatThrownBy(lease::acquire)
        .isInstanceOf(SlotBusyException.class)
        .hasMessageContaining("renews its lease");
    assertThat(clock.nanoTime() - t0)
        .isLessThanOrEqualTo(T.heartbeat().plus(T.stalePoll()).toNanos());
    assertThat(storage.row(0).owner()).isEqualTo(holder);
    assertThat(storage.row(0).generation()).isEqualTo(5);
    assertRefused(lease);
  }

  @Test
  void aRestartWaitsForAStaleReservationAndTakesItOnceItExpires() {
    storage.policy = POLICY;
    storage.reserve(0, UUID.randomUUID(), 7, T.databaseLease()); // a stopped holder
    long t0 = clock.nanoTime();
    SlotLease lease = acquired(0);
    long waited = clock.nanoTime() - t0;
    assertThat(waited).isGreaterThanOrEqualTo(T.databaseLease().toNanos());
    assertThat(waited).isLessThan(T.databaseLease().plus(T.stalePoll()).toNanos());
    assertThat(lease.generation()).isEqualTo(8);
    assertThat(storage.row(0).owner()).isEqualTo(lease.owner());
    assertThat(lease.mayServe()).isTrue();
  }

  @Test
  void aStaleReservationThatOutlivesTheStaleWaitIsRefused() {
    storage.policy = POLICY;
    storage.reserve(1, UUID.randomUUID(), 7, Duration.ofHours(1));
    long t0 = clock.nanoTime();
    SlotLease lease = lease(POLICY, 1);
    assertThatThrownBy(lease::acquire)
        .isInstanceOf(SlotBusyException.class)
        .hasMessageContaining("still reserved");
    assertThat(clock.nanoTime() - t0).isGreaterThanOrEqualTo(T.staleWait().toNanos());
    assertThat(clock.nanoTime() - t0).isLessThan(T.staleWait().plus(T.stalePoll()).toNanos());
    assertRefused(lease);
  }

  @Test
  void aDatabaseFailureDuringStartIsUnavailableAndClosesTheStorage() {
    storage.failNext = new StoreUnavailableException("acquiring slot 0 failed (SQLState 08006)");
    SlotLease lease = lease(POLICY, 0);
    assertThatThrownBy(lease::acquire)
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("slot 0 could not start")
        .hasMessageContaining("08006");
    assertRefused(lease);
  }

  @Test
  void aSlotOutsideThePolicyIsRejected() {
    assertThatThrownBy(() -> lease(POLICY, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> lease(POLICY, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(storage.sessionsOpened).isZero();
  }

  private void assertRefused(SlotLease lease) {
    assertThat(lease.state()).isEqualTo(LeaseState.CLOSED);
    assertThat(lease.mayServe()).isFalse();
    assertThat(storage.closed).isTrue();
  }
}
