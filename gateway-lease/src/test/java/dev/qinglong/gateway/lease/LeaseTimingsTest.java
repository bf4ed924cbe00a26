package dev.qinglong.gateway.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseTimingsTest {

  @Test
  void defaultsAreTheAdrValues() {
    assertThat(LeaseTimings.DEFAULTS.databaseLease()).isEqualTo(Duration.ofSeconds(10));
    assertThat(LeaseTimings.DEFAULTS.localValidity()).isEqualTo(Duration.ofSeconds(8));
    assertThat(LeaseTimings.DEFAULTS.heartbeat()).isEqualTo(Duration.ofSeconds(2));
    assertThat(LeaseTimings.DEFAULTS.staleWait()).isEqualTo(Duration.ofSeconds(15));
  }

  @Test
  void defaultsKeepTheSafetyRelations() {
    LeaseTimings t = LeaseTimings.DEFAULTS;
    // The process stops serving 2 s before anyone can take its slot: the clock-drift margin.
    assertThat(t.databaseLease().minus(t.localValidity())).isEqualTo(Duration.ofSeconds(2));
    // Four renewals fit in one window, so up to three may fail without losing the lease.
    assertThat(t.localValidity().dividedBy(t.heartbeat())).isEqualTo(4);
    // A stale reservation always expires within the restart wait.
    assertThat(t.staleWait()).isGreaterThan(t.databaseLease());
  }

  @Test
  void unsafeTimingsAreRefused() {
    Duration s = Duration.ofSeconds(1);
    assertThatThrownBy(
            () -> new LeaseTimings(s.multipliedBy(8), s.multipliedBy(8), s, s.multipliedBy(15)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shorter than databaseLease");
    assertThatThrownBy(
            () ->
                new LeaseTimings(
                    s.multipliedBy(10), s.multipliedBy(8), s.multipliedBy(5), s.multipliedBy(15)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("half of localValidity");
    assertThatThrownBy(
            () ->
                new LeaseTimings(
                    s.multipliedBy(10), s.multipliedBy(8), s.multipliedBy(2), s.multipliedBy(9)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("staleWait");
    assertThatThrownBy(
            () ->
                new LeaseTimings(
                    s.multipliedBy(10), s.multipliedBy(8), Duration.ZERO, s.multipliedBy(15)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
