package dev.qinglong.gateway.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseWindowTest {
  private final FakeClock clock = new FakeClock();
  private final LeaseWindow window = new LeaseWindow(clock, Duration.ofSeconds(8));

  @Test
  void notValidBeforeAcquisition() {
    assertThat(window.isValid()).isFalse();
  }

  @Test
  void validForLocalValidityFromTheStartOfTheRequestNotFromTheAnswer() {
    LeaseWindow.Start start = window.begin();
    clock.tick(Duration.ofSeconds(3)); // the answer took 3 s
    assertThat(window.open(start)).isTrue();
    clock.tick(Duration.ofMillis(4999));
    assertThat(window.isValid()).isTrue();
    clock.tick(Duration.ofMillis(1)); // 8 s after the start, only 5 s after the answer
    assertThat(window.isValid()).isFalse();
  }

  @Test
  void aRenewalMovesTheWindowToItsOwnStart() {
    window.open(window.begin());
    clock.tick(Duration.ofSeconds(2));
    LeaseWindow.Start renewal = window.begin();
    clock.tick(Duration.ofSeconds(1));
    assertThat(window.renewed(renewal)).isTrue();
    clock.tick(Duration.ofMillis(6999)); // 7.999 s after the renewal's start
    assertThat(window.isValid()).isTrue();
    clock.tick(Duration.ofMillis(1));
    assertThat(window.isValid()).isFalse();
  }

  @Test
  void aLateAnswerNeverRevivesTheWindow() {
    window.open(window.begin());
    clock.tick(Duration.ofSeconds(2));
    LeaseWindow.Start renewal = window.begin();
    clock.tick(Duration.ofSeconds(9)); // answer arrives 11 s after the window opened
    assertThat(window.renewed(renewal)).isFalse();
    assertThat(window.isValid()).isFalse();
    // Even a later, quick renewal cannot reopen it: loss is terminal.
    LeaseWindow.Start next = window.begin();
    assertThat(window.renewed(next)).isFalse();
    assertThat(window.isValid()).isFalse();
  }

  @Test
  void theWallClockEndsTheWindowWhileTheMonotonicClockStandsStill() {
    window.open(window.begin());
    clock.sleepHost(Duration.ofSeconds(30)); // suspended host: nanoTime did not move
    assertThat(window.isValid()).isFalse();
  }

  @Test
  void theMonotonicClockStillBoundsTheWindowIfTheWallClockGoesBack() {
    window.open(window.begin());
    clock.stepWall(Duration.ofHours(-1));
    assertThat(window.isValid()).isTrue();
    clock.tick(Duration.ofSeconds(8));
    assertThat(window.isValid()).isFalse();
  }

  @Test
  void anExpiredWindowStaysClosedEvenIfTheWallClockStepsBack() {
    window.open(window.begin());
    clock.sleepHost(Duration.ofSeconds(9));
    assertThat(window.isValid()).isFalse();
    clock.stepWall(Duration.ofSeconds(-9));
    assertThat(window.isValid()).isFalse();
  }

  @Test
  void closeIsForGood() {
    window.open(window.begin());
    window.close();
    assertThat(window.isValid()).isFalse();
    assertThat(window.renewed(window.begin())).isFalse();
  }
}
