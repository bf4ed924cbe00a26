package dev.qinglong.gateway.lease;

import java.time.Duration;
import java.util.Objects;

/**
 * The timings of a shared-download lease (docs/design.md#leases).
 *
 * @param databaseLease how long one acquisition or renewal reserves the slot, on the database clock
 *     (default 10 s)
 * @param localValidity how long the process may serve after the <em>start</em> of its last
 *     successful acquisition or renewal request, by both local clocks (default 8 s). Shorter than
 *     {@code databaseLease}, so the process has stopped before anyone else can take the slot; the
 *     difference is the clock-drift margin.
 * @param heartbeat the interval between renewals (default 2 s)
 * @param staleWait how long a restart of the same slot waits for a non-renewing reservation to
 *     expire (default 15 s); at least {@code databaseLease}, so a stale reservation always expires
 *     within it
 */
public record LeaseTimings(
    Duration databaseLease, Duration localValidity, Duration heartbeat, Duration staleWait) {

  /** 10 s / 8 s / 2 s / 15 s. */
  public static final LeaseTimings DEFAULTS =
      new LeaseTimings(
          Duration.ofSeconds(10),
          Duration.ofSeconds(8),
          Duration.ofSeconds(2),
          Duration.ofSeconds(15));

  public LeaseTimings {
    Objects.requireNonNull(databaseLease, "databaseLease");
    Objects.requireNonNull(localValidity, "localValidity");
    Objects.requireNonNull(heartbeat, "heartbeat");
    Objects.requireNonNull(staleWait, "staleWait");
    if (heartbeat.isNegative() || heartbeat.isZero()) {
      throw new IllegalArgumentException("heartbeat must be positive, was " + heartbeat);
    }
    if (databaseLease.toMillis() < 1) {
      throw new IllegalArgumentException("databaseLease must be >= 1 ms, was " + databaseLease);
    }
    if (localValidity.compareTo(databaseLease) >= 0) {
      throw new IllegalArgumentException(
          "localValidity ("
              + localValidity
              + ") must be shorter than databaseLease ("
              + databaseLease
              + "): the process must stop serving before its slot can be taken");
    }
    if (heartbeat.multipliedBy(2).compareTo(localValidity) > 0) {
      // One lost renewal must not end the lease: at least two attempts fit in the window.
      throw new IllegalArgumentException(
          "heartbeat ("
              + heartbeat
              + ") must be at most half of localValidity ("
              + localValidity
              + ")");
    }
    if (staleWait.compareTo(databaseLease) < 0) {
      throw new IllegalArgumentException(
          "staleWait (" + staleWait + ") must be at least databaseLease (" + databaseLease + ")");
    }
  }

  /**
   * How often a restart polls a reservation held by someone else: a quarter heartbeat, so a
   * renewing holder is seen renewing within about one heartbeat.
   */
  public Duration stalePoll() {
    return heartbeat.dividedBy(4);
  }
}
