package dev.qinglong.postgres.leases;

import dev.qinglong.gateway.lease.LeaseListener;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Records lease events with the monotonic time of the loss. */
final class RecordingLeaseListener implements LeaseListener {
  final AtomicInteger renewed = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();
  final AtomicInteger lost = new AtomicInteger();
  final AtomicReference<String> lossReason = new AtomicReference<>();
  final AtomicLong lostAtNanos = new AtomicLong();

  /** Where the lease's local window last started (lease clock, monotonic), 0 before the first. */
  final AtomicLong windowStartNanos = new AtomicLong();

  private final CountDownLatch lostLatch = new CountDownLatch(1);

  @Override
  public void onWindowStarted(int slot, long startNanos) {
    windowStartNanos.set(startNanos);
  }

  @Override
  public void onRenewed(int slot, long generation) {
    renewed.incrementAndGet();
  }

  @Override
  public void onRenewalFailed(int slot, Exception cause) {
    failed.incrementAndGet();
  }

  @Override
  public void onLost(int slot, String reason) {
    lostAtNanos.set(System.nanoTime());
    lossReason.set(reason);
    lost.incrementAndGet();
    lostLatch.countDown();
  }

  boolean awaitLost(long seconds) throws InterruptedException {
    return lostLatch.await(seconds, TimeUnit.SECONDS);
  }
}
