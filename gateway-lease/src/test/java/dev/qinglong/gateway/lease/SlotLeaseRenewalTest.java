package dev.qinglong.gateway.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The running lease on a fake clock over an in-memory storage, with the default timings (10 s in
 * the database, 8 s local validity, 2 s heartbeat): every renewal, answer and expiry happens at an
 * exact time, and the heartbeat is driven by the test instead of a thread.
 */
class SlotLeaseRenewalTest {
  static final SharedDownloadPolicy POLICY = new SharedDownloadPolicy(1_000_000, 100_000, 3);
  private static final LeaseTimings T = LeaseTimings.DEFAULTS;

  private final FakeClock clock = new FakeClock();
  private final FakeLeaseStorage storage = new FakeLeaseStorage(clock);
  private final Events events = new Events();
  private SlotLease lease;

  @BeforeEach
  void acquire() {
    lease = new SlotLease(storage, POLICY, 0, T, clock, events);
    lease.acquire();
    assertThat(lease.mayServe()).isTrue();
  }

  @Test
  void localValidityIsCountedFromTheStartOfTheRenewingRequest() {
    clock.tick(T.heartbeat()); // t = 2 s
    storage.renewDelay = Duration.ofSeconds(3); // the answer arrives at t = 5 s
    assertThat(lease.renew()).isTrue();
    assertThat(lease.status().renewals()).isEqualTo(1);

    clock.tick(Duration.ofMillis(4999)); // t = 9.999 s: past the acquisition's window (8 s)
    assertThat(lease.mayServe()).isTrue();
    clock.tick(Duration.ofMillis(1)); // t = 10 s = renewal start + 8 s (answer + 8 s would be 13 s)
    assertThat(lease.mayServe()).isFalse();
    lease.checkWindow();
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(events.lost).singleElement().asString().contains("local validity expired");
  }

  @Test
  void theWallClockAloneEndsTheWindow() {
    clock.sleepHost(T.localValidity()); // the host slept: the monotonic clock stood still
    assertThat(lease.mayServe()).isFalse();
    lease.checkWindow();
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
  }

  @Test
  void aLateRenewalAnswerNeverRevivesTheLeaseEvenThoughTheDatabaseSaidYes() {
    clock.tick(T.heartbeat()); // t = 2 s
    storage.renewDelay = Duration.ofSeconds(7); // "ok" arrives at t = 9 s; the window ended at 8 s
    assertThat(lease.renew()).isTrue();

    assertThat(storage.renewCalls).singleElement().extracting(c -> c.renewed()).isEqualTo(true);
    assertThat(lease.status().lateAnswers()).isEqualTo(1);
    assertThat(lease.status().renewals()).isZero();
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(lease.mayServe()).isFalse();
    assertThat(events.renewed).isZero();
    assertThat(events.lost).singleElement().asString().contains("after the local validity window");
    assertTerminal();
  }

  @Test
  void aLateAnswerAfterTheWatchdogFiredIsCountedAndChangesNothing() {
    clock.tick(T.heartbeat());
    // The renewal hangs on the network; meanwhile the window ends and the watchdog fires.
    storage.whileRenewAnswerTravels =
        () -> {
          clock.tick(Duration.ofSeconds(6));
          lease.checkWindow();
          assertThat(lease.state()).isEqualTo(LeaseState.LOST);
          clock.tick(Duration.ofSeconds(1));
        };
    lease.renew();

    assertThat(lease.status().lateAnswers()).isEqualTo(1);
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(lease.mayServe()).isFalse();
    assertThat(events.lost).singleElement().asString().contains("local validity expired");
    assertTerminal();
  }

  @Test
  void everyRenewalCarriesThisOwnerAndGeneration() {
    for (int i = 0; i < 5; i++) {
      clock.tick(T.heartbeat());
      assertThat(lease.renew()).isTrue();
    }
    assertThat(storage.renewCalls)
        .hasSize(5)
        .allSatisfy(
            c -> {
              assertThat(c.owner()).isEqualTo(lease.owner());
              assertThat(c.generation()).isEqualTo(lease.generation());
              assertThat(c.renewed()).isTrue();
            });
    clock.tick(Duration.ofMillis(7999)); // 8 s after the last start would be one ms later
    assertThat(lease.mayServe()).isTrue();
    assertThat(events.renewed).isEqualTo(5);
    assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
  }

  @Test
  void aRenewalFencedByANewOwnerLosesTheLeaseAtOnce() {
    storage.takeOver(0, T.databaseLease());
    clock.tick(T.heartbeat());
    assertThat(lease.mayServe()).isTrue(); // the local window alone would still allow serving

    assertThat(lease.renew()).isTrue();
    assertThat(storage.renewCalls).singleElement().extracting(c -> c.renewed()).isEqualTo(false);
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(lease.mayServe()).isFalse();
    assertThat(events.lost).singleElement().asString().contains("refused");
    assertTerminal();
  }

  @Test
  void aRenewalFencedByAnExpiredReservationLosesTheLease() {
    storage.expire(0); // e.g. the database clock ran ahead; nobody took the slot
    clock.tick(T.heartbeat());
    lease.renew();
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(lease.mayServe()).isFalse();
    assertThat(events.lost).singleElement().asString().contains("refused");
  }

  @Test
  void aDatabaseErrorIsNotALossAndTheNextRenewalUsesANewSession() {
    clock.tick(T.heartbeat());
    storage.failNext = new StoreUnavailableException("connection reset");
    assertThat(lease.renew()).isFalse();
    assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
    assertThat(lease.mayServe()).isTrue();
    assertThat(lease.status().failedRenewals()).isEqualTo(1);
    assertThat(events.failed).isEqualTo(1);

    clock.tick(T.heartbeat().dividedBy(4));
    assertThat(lease.renew()).isTrue();
    assertThat(storage.sessionsOpened).isEqualTo(2);
    assertThat(lease.status().renewals()).isEqualTo(1);
    assertThat(events.lost).isEmpty();
  }

  @Test
  void aBarrierThatCannotBeRetakenAfterAReconnectLosesTheLease() {
    clock.tick(T.heartbeat());
    storage.failNext = new StoreUnavailableException("connection reset");
    lease.renew();
    storage.standaloneHoldsBarrier = true;
    lease.renew();
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(lease.mayServe()).isFalse();
    assertThat(events.lost).singleElement().asString().contains("barrier");
  }

  @Test
  void failingRenewalsEndTheLeaseWhenTheWindowRunsOut() {
    for (int i = 0; i < 16; i++) { // every half second for 8 s, all failing
      clock.tick(Duration.ofMillis(500));
      storage.failNext = new StoreUnavailableException("unreachable");
      lease.renew();
      lease.checkWindow();
    }
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(events.lost).singleElement().asString().contains("local validity expired");
    assertTerminal();
  }

  @Test
  void closeStopsServingKeepsTheReservationAndFiresNoLoss() {
    lease.close();
    assertThat(lease.state()).isEqualTo(LeaseState.CLOSED);
    assertThat(lease.mayServe()).isFalse();
    assertThat(storage.closed).isTrue();
    assertThat(storage.row(0).expiresAt()).isGreaterThan(storage.now());
    lease.checkWindow();
    lease.renew();
    lease.close();
    assertThat(lease.state()).isEqualTo(LeaseState.CLOSED);
    assertThat(events.lost).isEmpty();
    assertThat(storage.renewCalls).isEmpty();
  }

  /** Nothing brings a lost lease back, no further renewal is sent, and onLost fired once. */
  private void assertTerminal() {
    int sent = storage.renewCalls.size();
    storage.renewDelay = Duration.ZERO;
    storage.whileRenewAnswerTravels = () -> {};
    for (int i = 0; i < 3; i++) {
      clock.tick(T.heartbeat());
      assertThat(lease.renew()).isTrue();
      lease.checkWindow();
      assertThat(lease.mayServe()).isFalse();
    }
    lease.close();
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);
    assertThat(storage.renewCalls).hasSize(sent);
    assertThat(events.lost).hasSize(1);
    assertThat(lease.status().lossReason()).isEqualTo(events.lost.get(0));
  }

  static final class Events implements LeaseListener {
    int renewed;
    int failed;
    final List<String> lost = new ArrayList<>();

    @Override
    public void onRenewed(int slot, long generation) {
      renewed++;
    }

    @Override
    public void onRenewalFailed(int slot, Exception cause) {
      failed++;
    }

    @Override
    public void onLost(int slot, String reason) {
      lost.add(reason);
    }
  }
}
