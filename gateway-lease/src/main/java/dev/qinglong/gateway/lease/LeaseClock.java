package dev.qinglong.gateway.lease;

import java.time.Duration;

/**
 * The two local clocks a lease window is checked against. The monotonic clock cannot jump but
 * stands still while the host sleeps; the wall clock keeps running during sleep but can jump. A
 * window is valid only while both say it is (docs/design.md#leases).
 */
public interface LeaseClock {

  /** {@link System#nanoTime()} and {@link System#currentTimeMillis()}. */
  LeaseClock SYSTEM =
      new LeaseClock() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public long wallMillis() {
          return System.currentTimeMillis();
        }
      };

  /** Monotonic nanoseconds, as {@link System#nanoTime()}. */
  long nanoTime();

  /** Wall-clock epoch milliseconds, as {@link System#currentTimeMillis()}. */
  long wallMillis();

  /**
   * Waits about {@code d} (at least 1 ms) between two polls of a lease start-up. A test clock
   * advances itself instead of blocking.
   *
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  default void sleep(Duration d) throws InterruptedException {
    Thread.sleep(Math.max(1, d.toMillis()));
  }
}
