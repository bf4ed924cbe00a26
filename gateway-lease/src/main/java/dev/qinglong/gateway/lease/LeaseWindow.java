package dev.qinglong.gateway.lease;

import java.time.Duration;
import java.util.Objects;

/**
 * The local validity window of a lease. It opens at the <em>start</em> of a successful acquisition
 * or renewal request (recorded before the request is sent) and lasts {@code localValidity} by both
 * the monotonic and the wall clock. An answer that arrives after the window has closed never
 * reopens it: a late "ok" from the database does not revive an expired owner, and once closed the
 * window stays closed.
 *
 * <p>Thread-safe.
 */
public final class LeaseWindow {
  private final LeaseClock clock;
  private final long validityNanos;
  private final long validityMillis;

  // Guarded by this.
  private boolean opened;
  private boolean closedForGood;
  private long fromNanos;
  private long fromWallMillis;

  /** A request's start on both clocks, taken just before it is sent. */
  public record Start(long nanos, long wallMillis) {}

  public LeaseWindow(LeaseClock clock, Duration localValidity) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.validityNanos = localValidity.toNanos();
    this.validityMillis = localValidity.toMillis();
  }

  /** Records the start of a request; call just before sending it. */
  public Start begin() {
    return new Start(clock.nanoTime(), clock.wallMillis());
  }

  /**
   * Opens the first window from a successful acquisition.
   *
   * @return {@code true} if the window is valid now; {@code false} if the acquisition's answer took
   *     longer than the whole window (the lease is then unusable and stays closed)
   */
  public synchronized boolean open(Start acquisitionStart) {
    if (opened || closedForGood) {
      throw new IllegalStateException("window already opened. Indicates a bug.");
    }
    opened = true;
    fromNanos = acquisitionStart.nanos();
    fromWallMillis = acquisitionStart.wallMillis();
    return checkNow();
  }

  /**
   * Applies a successful renewal answer for a request that started at {@code renewalStart}.
   *
   * @return {@code true} if the window was still valid when the answer arrived and now runs from
   *     {@code renewalStart}; {@code false} if the answer is late: the window had already closed
   *     and stays closed for good
   */
  public synchronized boolean renewed(Start renewalStart) {
    if (!opened) {
      throw new IllegalStateException("renewal before acquisition. Indicates a bug.");
    }
    if (!checkNow()) {
      return false;
    }
    // Renewals are sequential, but never let an older start move the window backwards.
    if (renewalStart.nanos() - fromNanos > 0) {
      fromNanos = renewalStart.nanos();
    }
    fromWallMillis = Math.max(fromWallMillis, renewalStart.wallMillis());
    return checkNow();
  }

  /** Closes the window for good (lease lost or released). */
  public synchronized void close() {
    closedForGood = true;
  }

  /**
   * Whether the process may serve now: opened, not closed, and within the window on both clocks.
   */
  public synchronized boolean isValid() {
    return checkNow();
  }

  // Caller holds the lock.
  private boolean checkNow() {
    if (!opened || closedForGood) {
      return false;
    }
    long elapsedNanos = clock.nanoTime() - fromNanos;
    long elapsedWallMillis = clock.wallMillis() - fromWallMillis;
    // A wall clock that went backwards gives a negative elapsed time; the monotonic clock still
    // bounds the window then. Either clock running out closes the window for good.
    boolean valid = elapsedNanos < validityNanos && elapsedWallMillis < validityMillis;
    if (!valid) {
      closedForGood = true;
    }
    return valid;
  }
}
