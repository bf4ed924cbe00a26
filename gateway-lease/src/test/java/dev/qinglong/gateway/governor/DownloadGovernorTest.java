package dev.qinglong.gateway.governor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Rates are checked the way a token bucket guarantees them, so the checks cannot flake on a slow
 * machine: everything admitted between building a governor ({@code t0}) and the moment all
 * downloaders have returned ({@code t1}) is at most one burst plus {@code rate * (t1 - t0)}. A slow
 * machine only makes {@code t1 - t0} longer, which loosens the bound, never tightens it. The lower
 * bounds (the limit is not far too strict) are deliberately loose.
 */
class DownloadGovernorTest {
  private static final Duration RUN = Duration.ofMillis(1500);
  private static final long CHUNK = 4096;
  private static final Duration NO_BOUND = Duration.ofMinutes(1);

  @Test
  void totalRateHoldsAcrossPrincipalsAndThreads() throws Exception {
    long rate = 100_000;
    long t0 = System.nanoTime();
    DownloadGovernor governor =
        new DownloadGovernor(
            new DownloadRates(rate, 0), ServingGate.ALWAYS_OPEN, GovernorListener.NONE);
    long[] perThread = runDownloaders(List.of(governor), new String[] {"a", "b", "c", "d"});
    double seconds = (System.nanoTime() - t0) / 1e9;

    long admitted = sum(perThread);
    assertThat(admitted).isLessThanOrEqualTo(rate + (long) Math.ceil(rate * seconds));
    assertThat(admitted).isGreaterThan((long) (rate * RUN.toMillis() / 1000.0 * 0.5));
  }

  @Test
  void perPrincipalRateHoldsForEachPrincipal() throws Exception {
    long perPrincipal = 40_000;
    long t0 = System.nanoTime();
    DownloadGovernor governor =
        new DownloadGovernor(
            new DownloadRates(0, perPrincipal), ServingGate.ALWAYS_OPEN, GovernorListener.NONE);
    // Two threads per principal: the limit is per principal, not per connection.
    long[] perThread =
        runDownloaders(List.of(governor), new String[] {"alice", "alice", "bob", "bob"});
    double seconds = (System.nanoTime() - t0) / 1e9;

    long bound = perPrincipal + (long) Math.ceil(perPrincipal * seconds);
    long alice = perThread[0] + perThread[1];
    long bob = perThread[2] + perThread[3];
    assertThat(alice).isLessThanOrEqualTo(bound);
    assertThat(bob).isLessThanOrEqualTo(bound);
    // Principals do not share a budget: each got a good part of its own.
    assertThat(alice).isGreaterThan((long) (perPrincipal * RUN.toMillis() / 1000.0 * 0.5));
    assertThat(bob).isGreaterThan((long) (perPrincipal * RUN.toMillis() / 1000.0 * 0.5));
  }

  @Test
  void twoGovernorsOnTheirSharesStayWithinTheTotal() throws Exception {
    SharedDownloadPolicy policy = new SharedDownloadPolicy(120_001, 0, 2);
    DownloadRates share = policy.share();
    assertThat(share.bytesPerSecond()).isEqualTo(60_000);
    long t0 = System.nanoTime();
    DownloadGovernor first =
        new DownloadGovernor(share, ServingGate.ALWAYS_OPEN, GovernorListener.NONE);
    DownloadGovernor second =
        new DownloadGovernor(share, ServingGate.ALWAYS_OPEN, GovernorListener.NONE);
    long[] perThread =
        runDownloaders(List.of(first, first, second, second), new String[] {"a", "b", "c", "d"});
    double seconds = (System.nanoTime() - t0) / 1e9;

    long total = sum(perThread);
    // One share of burst per gateway: together one total burst.
    long bound =
        2 * share.bytesPerSecond() + (long) Math.ceil(2 * share.bytesPerSecond() * seconds);
    assertThat(bound)
        .isLessThanOrEqualTo(policy.rateBytesPerSecond() * (1 + (long) Math.ceil(seconds)));
    assertThat(total).isLessThanOrEqualTo(bound);
    assertThat(perThread[0] + perThread[1])
        .isLessThanOrEqualTo(
            share.bytesPerSecond() + (long) Math.ceil(share.bytesPerSecond() * seconds));
  }

  @Test
  void aChunkLargerThanOneBurstIsAdmittedPiecewiseAtTheRate() throws Exception {
    FakeTime time = new FakeTime();
    DownloadGovernor governor =
        governor(new DownloadRates(1000, 0), ServingGate.ALWAYS_OPEN, GovernorListener.NONE, time);
    governor.acquire("a", 2500, NO_BOUND);
    // 1000 bytes of burst, then 1500 more at 1000 B/s: 1.5 s of waiting, on the governor's clock.
    assertThat(time.parks).hasValue(2); // the second and the third piece
    assertThat(time.now.get()).isCloseTo(TimeUnit.MILLISECONDS.toNanos(1500), within(1_000L));
  }

  @Test
  void unlimitedRatesNeverWait() throws Exception {
    DownloadGovernor governor =
        new DownloadGovernor(
            DownloadRates.UNLIMITED, ServingGate.ALWAYS_OPEN, GovernorListener.NONE);
    governor.acquire("a", Long.MAX_VALUE / 2, Duration.ZERO);
    assertThat(governor.trackedPrincipals()).isZero();
  }

  @Test
  void aWaitBeyondItsBoundIsRefusedWithoutConsuming() throws Exception {
    AtomicLong refusals = new AtomicLong();
    GovernorListener listener =
        new GovernorListener() {
          @Override
          public void onRefused(Refusal refusal) {
            if (refusal == Refusal.WAIT_BOUND_EXCEEDED) {
              refusals.incrementAndGet();
            }
          }
        };
    FakeTime time = new FakeTime();
    DownloadGovernor governor =
        governor(new DownloadRates(10_000, 10_000), ServingGate.ALWAYS_OPEN, listener, time);
    governor.acquire("a", 10_000, Duration.ZERO); // the whole burst
    assertThatThrownBy(() -> governor.acquire("a", 5_000, Duration.ofMillis(10)))
        .isInstanceOf(ThrottleTimeoutException.class);
    assertThat(refusals).hasValue(1);
    assertThat(time.now.get()).as("the refusal did not wait").isZero();
    // Nothing was taken by the refusal: 5000 bytes need 0.5 s of refill, not 1 s.
    governor.acquire("a", 5_000, Duration.ofSeconds(5));
    assertThat(time.now.get()).isCloseTo(TimeUnit.MILLISECONDS.toNanos(500), within(1_000L));
  }

  @Test
  void aClosedGateHaltsBeforeAndAfterTheWait() throws Exception {
    AtomicBoolean open = new AtomicBoolean(true);
    AtomicLong served = new AtomicLong();
    GovernorListener listener =
        new GovernorListener() {
          @Override
          public void onBytesServed(String principal, long bytes) {
            served.addAndGet(bytes);
          }
        };
    FakeTime time = new FakeTime();
    DownloadGovernor governor = governor(new DownloadRates(1000, 0), open::get, listener, time);
    governor.acquire("a", 1000, NO_BOUND);
    assertThat(served).hasValue(1000);

    // The next 3000 bytes need 3 s of refill; the gate closes during the first wait (the clock's
    // park hook closes it, so it is closed exactly while the chunk waits): none may go out.
    time.onPark = () -> open.set(false);
    assertThatThrownBy(() -> governor.acquire("a", 3000, NO_BOUND))
        .isInstanceOf(DownloadsHaltedException.class);
    assertThat(time.parks).hasValue(1);
    assertThat(served).hasValue(1000);
    assertThatThrownBy(() -> governor.acquire("a", 1, NO_BOUND))
        .isInstanceOf(DownloadsHaltedException.class);
    assertThat(governor.mayServe()).isFalse();
  }

  @Test
  void aWaitingDownloadIsInterruptible() throws Exception {
    DownloadGovernor governor =
        new DownloadGovernor(
            new DownloadRates(100, 0), ServingGate.ALWAYS_OPEN, GovernorListener.NONE);
    governor.acquire("a", 100, NO_BOUND);
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(1);
    Thread downloader =
        new Thread(
            () -> {
              started.countDown();
              try {
                governor.acquire("a", 100, NO_BOUND); // ~1 s of waiting
              } catch (Throwable t) {
                outcome.set(t);
              }
            });
    downloader.start();
    started.await();
    // Interrupted while it waits (parked in the bucket), not before: waited on its thread state.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (downloader.getState() != Thread.State.TIMED_WAITING) {
      assertThat(System.nanoTime()).as("the downloader parks").isLessThan(deadline);
      Thread.onSpinWait();
    }
    downloader.interrupt();
    downloader.join(5_000);
    assertThat(downloader.isAlive()).isFalse();
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
  }

  @Test
  void throttledWaitsAndServedBytesReachTheListener() throws Exception {
    AtomicLong served = new AtomicLong();
    AtomicLong throttledNanos = new AtomicLong();
    GovernorListener listener =
        new GovernorListener() {
          @Override
          public void onBytesServed(String principal, long bytes) {
            served.addAndGet(bytes);
          }

          @Override
          public void onThrottled(Limit limit, long nanos) {
            assertThat(limit).isEqualTo(Limit.TOTAL);
            throttledNanos.addAndGet(nanos);
          }
        };
    FakeTime time = new FakeTime();
    DownloadGovernor governor =
        governor(new DownloadRates(10_000, 0), ServingGate.ALWAYS_OPEN, listener, time);
    governor.acquire("a", 10_000, NO_BOUND);
    assertThat(throttledNanos).hasValue(0);
    governor.acquire("a", 10_000, NO_BOUND);
    assertThat(served).hasValue(20_000);
    // The second 10 kB needed a second of refill: it was parked that long, and the hook saw it.
    assertThat(throttledNanos.get()).isCloseTo(TimeUnit.SECONDS.toNanos(1), within(1_000L));
    assertThat(time.now.get()).isEqualTo(throttledNanos.get());
  }

  @Test
  void principalBucketsStayBoundedInNumber() throws Exception {
    DownloadGovernor governor =
        new DownloadGovernor(
            new DownloadRates(0, 1_000_000),
            ServingGate.ALWAYS_OPEN,
            GovernorListener.NONE,
            3,
            Duration.ofSeconds(1));
    for (int i = 0; i < 50; i++) {
      governor.acquire("user-" + i, 10, NO_BOUND);
      assertThat(governor.trackedPrincipals()).isLessThanOrEqualTo(3);
    }
    assertThat(governor.trackedPrincipals()).isEqualTo(3);
  }

  @Test
  void idlePrincipalBucketsAreEvicted() throws Exception {
    FakeTime time = new FakeTime();
    DownloadGovernor governor =
        new DownloadGovernor(
            new DownloadRates(0, 1_000_000),
            ServingGate.ALWAYS_OPEN,
            GovernorListener.NONE,
            100,
            Duration.ofSeconds(1),
            time);
    governor.acquire("old-1", 10, NO_BOUND);
    governor.acquire("old-2", 10, NO_BOUND);
    time.advance(Duration.ofMillis(999));
    governor.acquire("newer", 10, NO_BOUND);
    assertThat(governor.trackedPrincipals()).as("not idle for a second yet").isEqualTo(3);
    time.advance(Duration.ofMillis(1));
    governor.acquire("new", 10, NO_BOUND);
    // old-1 and old-2 have been idle for 1 s ("newer" for 1 ms only).
    assertThat(governor.trackedPrincipals()).isEqualTo(2);
    time.advance(Duration.ofSeconds(1));
    governor.acquire("newest", 10, NO_BOUND);
    // The idle ones were full again, so dropping them changed nothing but memory.
    assertThat(governor.trackedPrincipals()).isEqualTo(1);
  }

  @Test
  void badArgumentsAreRefused() {
    assertThatThrownBy(() -> new DownloadRates(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                new DownloadGovernor(
                    new DownloadRates(1, 1),
                    ServingGate.ALWAYS_OPEN,
                    GovernorListener.NONE,
                    10,
                    Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Runs one downloader thread per principal (thread i uses governors.get(i) if several are given)
   * for {@link #RUN}, each acquiring {@link #CHUNK}-byte chunks, and returns each thread's bytes.
   */
  private static long[] runDownloaders(List<DownloadGovernor> governors, String[] principals)
      throws InterruptedException {
    long[] bytes = new long[principals.length];
    long stopAt = System.nanoTime() + RUN.toNanos();
    List<Thread> threads = new ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int i = 0; i < principals.length; i++) {
      int index = i;
      DownloadGovernor governor = governors.get(Math.min(i, governors.size() - 1));
      Thread t =
          new Thread(
              () -> {
                try {
                  while (System.nanoTime() < stopAt) {
                    governor.acquire(principals[index], CHUNK, NO_BOUND);
                    bytes[index] += CHUNK;
                  }
                } catch (Throwable e) {
                  failure.set(e);
                }
              },
              "downloader-" + i);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failure.get()).isNull();
    return bytes;
  }

  private static DownloadGovernor governor(
      DownloadRates rates, ServingGate gate, GovernorListener listener, FakeTime time) {
    return new DownloadGovernor(
        rates,
        gate,
        listener,
        DownloadGovernor.DEFAULT_MAX_TRACKED_PRINCIPALS,
        DownloadGovernor.DEFAULT_IDLE_EVICTION,
        time);
  }

  /**
   * The governor's clock in a test: it stands still until advanced, and a wait advances it by
   * exactly the time waited (after running {@link #onPark}), so nothing depends on the machine.
   */
  static final class FakeTime implements GovernorTime {
    final AtomicLong now = new AtomicLong();
    final AtomicLong parks = new AtomicLong();
    volatile Runnable onPark = () -> {};

    void advance(Duration d) {
      now.addAndGet(d.toNanos());
    }

    @Override
    public long currentTimeNanos() {
      return now.get();
    }

    @Override
    public boolean isWallClockBased() {
      return false;
    }

    @Override
    public void park(long nanosToPark) throws InterruptedException {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      parks.incrementAndGet();
      onPark.run();
      now.addAndGet(nanosToPark);
    }
  }

  private static long sum(long[] values) {
    long s = 0;
    for (long v : values) {
      s += v;
    }
    return s;
  }
}
