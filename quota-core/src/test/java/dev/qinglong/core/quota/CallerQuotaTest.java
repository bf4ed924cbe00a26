package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The caller's quota computed from stored buckets and the database clock (pure). */
class CallerQuotaTest {
  static final ManagementQuotaPolicy POLICY =
      new ManagementQuotaPolicy(true, Duration.ofSeconds(60), Map.of(QuotaOperation.PROPOSE, 5));

  static OperationUsage of(QuotaUsage usage, QuotaOperation op) {
    return usage.operations().stream().filter(u -> u.operation() == op).findFirst().orElseThrow();
  }

  @Test
  void anOpenWindowShowsUsedRemainingAndResetOnTheDatabaseClock() {
    QuotaUsage usage =
        CallerQuota.usage(
            new BucketsSnapshot(
                1_000_000 + 20_001,
                Map.of(QuotaOperation.PROPOSE, new BucketsSnapshot.Bucket(1_000_000, 2))),
            POLICY);
    OperationUsage p = of(usage, QuotaOperation.PROPOSE);
    assertThat(p.used()).isEqualTo(2);
    assertThat(p.remaining()).isEqualTo(3);
    assertThat(p.windowStartedAtMs()).isEqualTo(1_000_000);
    assertThat(p.resetAtMs()).isEqualTo(1_060_000);
    assertThat(p.resetSeconds()).isEqualTo(40); // 39.999 s rounded up
    assertThat(usage.operations()).hasSize(QuotaOperation.values().length);
  }

  @Test
  void anEndedWindowIsUnusedAndALoweredLimitShowsAFullWindowNeverANegativeRest() {
    QuotaUsage usage =
        CallerQuota.usage(
            new BucketsSnapshot(
                1_060_000,
                Map.of(
                    QuotaOperation.DECIDE, new BucketsSnapshot.Bucket(1_000_000, 9),
                    QuotaOperation.PROPOSE, new BucketsSnapshot.Bucket(1_030_000, 8))),
            POLICY);
    OperationUsage d = of(usage, QuotaOperation.DECIDE);
    assertThat(d.used()).isZero();
    assertThat(d.remaining()).isEqualTo(60);
    assertThat(d.windowStartedAtMs()).isNull();
    assertThat(d.resetSeconds()).isNull();
    OperationUsage p = of(usage, QuotaOperation.PROPOSE);
    assertThat(p.used()).isEqualTo(5);
    assertThat(p.remaining()).isZero();
  }

  @Test
  void aCountOutsideTheBucketRangeIsUnavailable() {
    assertThatThrownBy(
            () ->
                CallerQuota.usage(
                    new BucketsSnapshot(
                        1, Map.of(QuotaOperation.INSPECT, new BucketsSnapshot.Bucket(0, 0))),
                    POLICY))
        .isInstanceOf(StoreUnavailableException.class);
  }
}
