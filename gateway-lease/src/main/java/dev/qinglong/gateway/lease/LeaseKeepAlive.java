package dev.qinglong.gateway.lease;

import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The two threads that keep an acquired {@link SlotLease} going: a heartbeat that calls {@link
 * SlotLease#renew()} every {@code heartbeat} (a quarter of that after a failed attempt), and a
 * watchdog that calls {@link SlotLease#checkWindow()} many times per window, so the gate closes the
 * moment the window runs out even while a renewal hangs on a dead network. Both stop once the lease
 * is no longer active; the heartbeat then ends the lease's database session.
 */
public final class LeaseKeepAlive implements AutoCloseable {
  private final SlotLease lease;
  private final LeaseClock clock;
  private final Thread heartbeat;
  private final ScheduledExecutorService watchdog;

  private LeaseKeepAlive(SlotLease lease, LeaseClock clock) {
    this.lease = Objects.requireNonNull(lease, "lease");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.heartbeat = new Thread(this::heartbeatLoop, "download-lease-slot-" + lease.slot());
    this.heartbeat.setDaemon(true);
    this.watchdog =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "download-lease-watchdog-slot-" + lease.slot());
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts the heartbeat and the watchdog of an acquired lease.
   *
   * @param clock the lease's clock, for the heartbeat schedule
   */
  public static LeaseKeepAlive start(SlotLease lease, LeaseClock clock) {
    LeaseKeepAlive keepAlive = new LeaseKeepAlive(lease, clock);
    keepAlive.startThreads();
    return keepAlive;
  }

  /**
   * Stops both threads; waits up to 5 s for the heartbeat. Close the lease first, so that a renewal
   * in flight is aborted. Idempotent.
   */
  @Override
  public void close() {
    watchdog.shutdownNow();
    if (heartbeat != Thread.currentThread()) {
      heartbeat.interrupt();
      try {
        heartbeat.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void startThreads() {
    // Fine-grained so the listener fires promptly; mayServe() checks the clocks itself anyway.
    long periodMillis =
        Math.max(10, Math.min(100, lease.timings().localValidity().toMillis() / 40));
    watchdog.scheduleAtFixedRate(
        () -> {
          lease.checkWindow();
          if (lease.state() != LeaseState.ACTIVE) {
            watchdog.shutdown();
          }
        },
        periodMillis,
        periodMillis,
        TimeUnit.MILLISECONDS);
    heartbeat.start();
  }

  private void heartbeatLoop() {
    long heartbeatNanos = lease.timings().heartbeat().toNanos();
    long next = clock.nanoTime() + heartbeatNanos;
    try {
      while (lease.state() == LeaseState.ACTIVE) {
        long wait = next - clock.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        if (lease.state() != LeaseState.ACTIVE) {
          return;
        }
        long started = clock.nanoTime();
        // After a failed attempt retry sooner: the window keeps running, and a quick second try
        // on a fresh session rides out a short outage.
        next = started + (lease.renew() ? heartbeatNanos : heartbeatNanos / 4);
      }
    } catch (InterruptedException e) {
      // close() interrupts.
    } finally {
      lease.endSession();
    }
  }
}
