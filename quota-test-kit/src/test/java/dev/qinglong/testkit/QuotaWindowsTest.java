package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The window guard waits only when too little of the window is left, and then for the next. */
class QuotaWindowsTest {
  private static final long HOUR = 3_600_000L;

  @Test
  void withRoomLeftItReturnsAfterOneLookAtTheClock() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    QuotaWindows.awaitRoom(
        HOUR,
        Duration.ofSeconds(20),
        () -> {
          reads.incrementAndGet();
          return 5 * HOUR + HOUR - 21_000;
        });
    assertThat(reads.get()).isEqualTo(1);
  }

  @Test
  void nearTheEndOfTheWindowItReturnsOnceTheNextHasBegun() throws Exception {
    // A clock 5 s before the hour that moves on 2 s each time it is read.
    AtomicLong now = new AtomicLong(6 * HOUR - 5_000);
    QuotaWindows.awaitRoom(HOUR, Duration.ofSeconds(20), () -> now.getAndAdd(2_000));
    assertThat(now.get()).isGreaterThan(6 * HOUR);
    assertThat(now.get()).isLessThan(6 * HOUR + HOUR - 20_000);
  }

  @Test
  void aNeedAsLongAsTheWindowIsRefused() {
    assertThatThrownBy(() -> QuotaWindows.awaitRoom(60_000, Duration.ofMinutes(1), () -> 0L))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
