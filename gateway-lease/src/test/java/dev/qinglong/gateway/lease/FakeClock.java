package dev.qinglong.gateway.lease;

import java.time.Duration;

/** Two independently settable clocks, to move the monotonic and the wall clock apart. */
final class FakeClock implements LeaseClock {
  private long nanos = 1_000_000_000L;
  private long wallMillis = 1_800_000_000_000L;

  @Override
  public synchronized long nanoTime() {
    return nanos;
  }

  @Override
  public synchronized long wallMillis() {
    return wallMillis;
  }

  /** Advances both clocks instead of blocking: a lease start-up's poll costs no real time. */
  @Override
  public void sleep(Duration d) {
    tick(d);
  }

  /** Both clocks advance together (normal running). */
  synchronized void tick(Duration d) {
    nanos += d.toNanos();
    wallMillis += d.toMillis();
  }

  /** Only the wall clock advances (the host slept: CLOCK_MONOTONIC stood still). */
  synchronized void sleepHost(Duration d) {
    wallMillis += d.toMillis();
  }

  /** Only the wall clock moves, e.g. backwards after an NTP step. */
  synchronized void stepWall(Duration d) {
    wallMillis += d.toMillis();
  }
}
