package dev.qinglong.app.webhooks.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryScheduleTest {
  private static final long H = 3_600_000;

  @Test
  void theCeilingDoublesFromTheInitialDelayUpToTheCap() {
    RetrySchedule s = RetrySchedule.defaults();

    assertThat(s.ceilingMs(1)).isEqualTo(5_000);
    assertThat(s.ceilingMs(2)).isEqualTo(10_000);
    assertThat(s.ceilingMs(3)).isEqualTo(20_000);
    assertThat(s.ceilingMs(10)).isEqualTo(2_560_000);
    assertThat(s.ceilingMs(11)).isEqualTo(H);
    assertThat(s.ceilingMs(200)).isEqualTo(H);
  }

  @Test
  void fullJitterSpansFromTheFloorToTheCeiling() {
    RetrySchedule low =
        new RetrySchedule(
            Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(24), () -> 0.0);
    RetrySchedule high =
        new RetrySchedule(
            Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(24), () -> 0.999_999_999);

    assertThat(low.nextAttemptAtMs(0, 3, 1_000)).isEqualTo(1_000 + RetrySchedule.FLOOR_MS);
    assertThat(high.nextAttemptAtMs(0, 3, 1_000)).isBetween(1_000 + 19_990L, 1_000 + 20_000L);
  }

  @Test
  void delaysAreSpreadWithinTheirBounds() {
    Random random = new Random(42);
    RetrySchedule s =
        new RetrySchedule(
            Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(24), random::nextDouble);
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 1_000; i++) {
      long delay = s.nextAttemptAtMs(0, 4, 0);
      min = Math.min(min, delay);
      max = Math.max(max, delay);
      assertThat(delay).isBetween(RetrySchedule.FLOOR_MS, 40_000L);
    }
    // Not bunched: the draws cover most of the range.
    assertThat(min).isLessThan(5_000);
    assertThat(max).isGreaterThan(35_000);
  }

  @Test
  void anAttemptThatWouldFallAfterThe24HourBudgetGivesUp() {
    RetrySchedule s =
        new RetrySchedule(
            Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(24), () -> 0.5);
    long created = 1_000_000;

    assertThat(s.nextAttemptAtMs(created, 20, created + 23 * H)).isNotNull();
    assertThat(s.nextAttemptAtMs(created, 20, created + 24 * H - 1)).isNull();
  }

  @Test
  void theDefaultScheduleRetriesForAboutADayWithinTheBudget() {
    RetrySchedule s =
        new RetrySchedule(
            Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(24), () -> 0.5);
    long created = 0;
    long now = 0;
    int attempts = 1;
    Long next;
    while ((next = s.nextAttemptAtMs(created, attempts, now)) != null) {
      now = next;
      attempts++;
    }
    assertThat(now).isLessThanOrEqualTo(24 * H).isGreaterThan(22 * H);
    assertThat(attempts).isBetween(20, 80);
  }
}
