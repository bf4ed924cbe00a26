package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BucketReadingTest {
  private static final Duration MINUTE = Duration.ofSeconds(60);

  @Test
  void receiptInTheCurrentWindowIsAReplay() {
    assertThat(new BucketReading(1_000, 3, 3, true, true, 2_000).classify(3, MINUTE))
        .contains(new QuotaDecision.Replayed(1_000, 3));
  }

  @Test
  void receiptOfAnotherRequestIsAReusedKeyEvenInAFullWindow() {
    assertThat(new BucketReading(1_000, 3, 3, true, false, 2_000).classify(3, MINUTE))
        .contains(new QuotaDecision.KeyReused());
    assertThat(new BucketReading(1_000, 2, 2, true, false, 2_000).classify(3, MINUTE))
        .contains(new QuotaDecision.KeyReused());
    assertThat(new QuotaDecision.KeyReused().admitted()).isFalse();
  }

  @Test
  void aReusedKeyInAnEndedWindowIsUndetermined() {
    // The statement would have restarted the window: decide again.
    assertThat(new BucketReading(0, 3, 3, true, false, 60_000).classify(3, MINUTE)).isEmpty();
  }

  @Test
  void fullWindowRejectsWithWholeSecondsRoundedUp() {
    // 60_000 - 15_001 = 44_999 ms left → 45 s.
    assertThat(new BucketReading(0, 3, 3, false, false, 15_001).classify(3, MINUTE))
        .contains(new QuotaDecision.Rejected(45));
    assertThat(new BucketReading(0, 3, 3, false, false, 59_999).classify(3, MINUTE))
        .contains(new QuotaDecision.Rejected(1));
    assertThat(new BucketReading(0, 3, 3, false, false, 15_000).classify(3, MINUTE))
        .contains(new QuotaDecision.Rejected(45));
  }

  @Test
  void windowStartInTheFutureNeverAsksForMoreThanOneWindow() {
    assertThat(new BucketReading(100_000, 3, 3, false, false, 0).classify(3, MINUTE))
        .contains(new QuotaDecision.Rejected(60));
  }

  @Test
  void endedWindowOrRoomLeftIsUndetermined() {
    assertThat(new BucketReading(0, 3, 3, true, true, 60_000).classify(3, MINUTE)).isEmpty();
    assertThat(new BucketReading(0, 2, 2, false, false, 1_000).classify(3, MINUTE)).isEmpty();
  }

  @Test
  void aCorruptRowIsUnavailable() {
    for (BucketReading corrupt :
        new BucketReading[] {
          new BucketReading(1_000, 3, 2, false, false, 2_000), // receipts do not match
          new BucketReading(1_000, 2, 3, true, true, 2_000), // even for a replay
          new BucketReading(1_000, 0, 0, false, false, 2_000), // count below range
          new BucketReading(1_000, 1001, 1001, false, false, 2_000) // count above range
        }) {
      assertThatThrownBy(() -> corrupt.classify(3, MINUTE))
          .as(corrupt.toString())
          .isInstanceOf(StoreUnavailableException.class);
    }
  }
}
