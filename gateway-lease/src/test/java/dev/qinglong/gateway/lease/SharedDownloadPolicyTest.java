package dev.qinglong.gateway.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.gateway.governor.DownloadRates;
import org.junit.jupiter.api.Test;

class SharedDownloadPolicyTest {

  @Test
  void shareIsTheFloorOfEachRateOverTheSlots() {
    assertThat(new SharedDownloadPolicy(1001, 11, 3).share()).isEqualTo(new DownloadRates(333, 3));
    assertThat(new SharedDownloadPolicy(1000, 100, 1).share())
        .isEqualTo(new DownloadRates(1000, 100));
  }

  @Test
  void sharesNeverAddUpToMoreThanTheTotal() {
    for (int slots = 1; slots <= 50; slots++) {
      for (long rate : new long[] {slots, 997, 1_000_000, 123_456_789}) {
        if (rate < slots) {
          continue;
        }
        SharedDownloadPolicy p = new SharedDownloadPolicy(rate, rate, slots);
        assertThat(p.share().bytesPerSecond() * slots).isLessThanOrEqualTo(rate);
        assertThat(p.share().bytesPerSecond()).isPositive();
      }
    }
  }

  @Test
  void unlimitedStaysUnlimited() {
    assertThat(new SharedDownloadPolicy(0, 0, 4).share()).isEqualTo(DownloadRates.UNLIMITED);
  }

  @Test
  void aRateBelowTheSlotCountIsRefusedRatherThanBecomingUnlimited() {
    assertThatThrownBy(() -> new SharedDownloadPolicy(3, 0, 4))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SharedDownloadPolicy(0, 3, 4))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SharedDownloadPolicy(10, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
