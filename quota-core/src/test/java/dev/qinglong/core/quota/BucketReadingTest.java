package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BucketReadingTest {
  private static final Duration MINUTE = Duration.ofSeconds(60);

  @Test
  void receiptInTheCurrentWindowIsAReplay() {
    assertThat(new BucketReading(1_000, 3, true, 2_000).classify(3, MINUTE))
        .contains(new QuotaDecision.Replayed(1_000, 3));
  }

  @Test
  void fullWindowRejectsWithWholeSecondsRoundedUp() {
    // 60_000 - 15_001 = 44_999 ms left → 45 s.
    assertThat(new BucketReading(0, 3, false, 15_001).classify(3, MINUTE))
        .contains(new QuotaDecision.Rejected(45));
    assertThat(new BucketReading(0, 3, false, 59_999).classify(3, MINUTE))
        .contains(new QuotaDecision.Rejected(1));
    assertThat(new BucketReading(0, 3, false, 15_000).classify(3, MINUTE))
        .contains(new QuotaDecision.Rejected(45));
  }

  @Test
  void windowStartInTheFutureNeverAsksForMoreThanOneWindow() {
    assertThat(new BucketReading(100_000, 3, false, 0).classify(3, MINUTE))
        .contains(new QuotaDecision.Rejected(60));
  }

  @Test
  void endedWindowOrRoomLeftIsUndetermined() {
    assertThat(new BucketReading(0, 3, true, 60_000).classify(3, MINUTE)).isEmpty();
    assertThat(new BucketReading(0, 2, false, 1_000).classify(3, MINUTE)).isEmpty();
  }
}
