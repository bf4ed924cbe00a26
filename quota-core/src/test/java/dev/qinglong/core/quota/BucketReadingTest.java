package dev.qinglong.core.quota;

import static dev.qinglong.core.quota.BucketReading.Outcome.ALLOWED;
import static dev.qinglong.core.quota.BucketReading.Outcome.CORRUPT;
import static dev.qinglong.core.quota.BucketReading.Outcome.KEY_REUSED;
import static dev.qinglong.core.quota.BucketReading.Outcome.REJECTED;
import static dev.qinglong.core.quota.BucketReading.Outcome.REPLAYED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BucketReadingTest {
  private static final Duration MINUTE = Duration.ofSeconds(60);

  private static EffectiveLimit limit(int limit) {
    return EffectiveLimit.defaultLimit(limit);
  }

  @Test
  void anAdmissionCarriesTheWindowStartTheCountAfterItAndTheDatabaseNow() {
    assertThat(new BucketReading(ALLOWED, 1_000, 3, 3, 2_000, limit(3)).decision(MINUTE))
        .isEqualTo(new QuotaDecision.Allowed(1_000, 3, 2_000, limit(3)));
  }

  @Test
  void receiptInTheCurrentWindowIsAReplay() {
    assertThat(new BucketReading(REPLAYED, 1_000, 3, 3, 2_000, limit(3)).decision(MINUTE))
        .isEqualTo(new QuotaDecision.Replayed(1_000, 3, 2_000, limit(3)));
  }

  @Test
  void receiptOfAnotherRequestIsAReusedKeyEvenInAFullWindow() {
    assertThat(new BucketReading(KEY_REUSED, 1_000, 3, 3, 2_000, limit(3)).decision(MINUTE))
        .isEqualTo(new QuotaDecision.KeyReused());
    assertThat(new BucketReading(KEY_REUSED, 1_000, 2, 2, 2_000, limit(3)).decision(MINUTE))
        .isEqualTo(new QuotaDecision.KeyReused());
    assertThat(new QuotaDecision.KeyReused().admitted()).isFalse();
  }

  @Test
  void fullWindowRejectsWithWholeSecondsRoundedUp() {
    // 60_000 - 15_001 = 44_999 ms left → 45 s.
    assertThat(new BucketReading(REJECTED, 0, 3, 3, 15_001, limit(3)).decision(MINUTE))
        .isEqualTo(new QuotaDecision.Rejected(45, limit(3), 0));
    assertThat(new BucketReading(REJECTED, 0, 3, 3, 59_999, limit(3)).decision(MINUTE))
        .isEqualTo(new QuotaDecision.Rejected(1, limit(3), 0));
    assertThat(new BucketReading(REJECTED, 0, 3, 3, 15_000, limit(3)).decision(MINUTE))
        .isEqualTo(new QuotaDecision.Rejected(45, limit(3), 0));
    assertThat(new BucketReading(REJECTED, 0, 3, 3, 15_000, limit(3)).remainingMs(MINUTE))
        .isEqualTo(45_000);
  }

  @Test
  void windowStartInTheFutureNeverAsksForMoreThanOneWindow() {
    assertThat(new BucketReading(REJECTED, 100_000, 3, 3, 0, limit(3)).decision(MINUTE))
        .isEqualTo(new QuotaDecision.Rejected(60, limit(3), 100_000));
  }

  @Test
  void aRefusalThatDisagreesWithTheRowIsUnavailable() {
    // The statement restarts an ended window, so a refusal from one is not a decision.
    assertThatThrownBy(
            () -> new BucketReading(REPLAYED, 0, 3, 3, 60_000, limit(3)).decision(MINUTE))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(
            () -> new BucketReading(REJECTED, 0, 3, 3, 60_000, limit(3)).decision(MINUTE))
        .isInstanceOf(StoreUnavailableException.class);
    // A full window is one at the limit.
    assertThatThrownBy(() -> new BucketReading(REJECTED, 0, 2, 2, 1_000, limit(3)).decision(MINUTE))
        .isInstanceOf(StoreUnavailableException.class);
    // An admission beyond the limit.
    assertThatThrownBy(() -> new BucketReading(ALLOWED, 0, 4, 4, 1_000, limit(3)).decision(MINUTE))
        .isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void anUnknownOrMissingOutcomeIsUnavailable() {
    assertThatThrownBy(() -> BucketReading.Outcome.fromWire("maybe"))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> new BucketReading(null, 0, 1, 1, 0, limit(3)))
        .isInstanceOf(StoreUnavailableException.class);
    for (BucketReading.Outcome outcome : BucketReading.Outcome.values()) {
      assertThat(BucketReading.Outcome.fromWire(outcome.wireName())).isEqualTo(outcome);
    }
  }

  @Test
  void aCorruptRowIsUnavailable() {
    for (BucketReading corrupt :
        new BucketReading[] {
          new BucketReading(REJECTED, 1_000, 3, 2, 2_000, limit(3)), // receipts do not match
          new BucketReading(REPLAYED, 1_000, 2, 3, 2_000, limit(3)), // even for a replay
          new BucketReading(REJECTED, 1_000, 0, 0, 2_000, limit(3)), // count below range
          new BucketReading(REJECTED, 1_000, 1001, 1001, 2_000, limit(3)), // count above range
          new BucketReading(CORRUPT, 1_000, 3, 3, 2_000, limit(3)) // the statement said so
        }) {
      assertThatThrownBy(() -> corrupt.decision(MINUTE))
          .as(corrupt.toString())
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("corrupt");
    }
  }
}
