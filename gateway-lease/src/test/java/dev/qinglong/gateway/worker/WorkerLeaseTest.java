package dev.qinglong.gateway.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The standby/active loop without a database, against an in-memory lock. */
class WorkerLeaseTest {
  private static final Duration RETRY = Duration.ofMillis(50);
  private static final Duration PASS = Duration.ofMillis(10);

  @Test
  void aSingleProcessWorkerIsActiveAndPublishes() throws Exception {
    AtomicInteger passes = new AtomicInteger();
    AtomicReference<Thread> passThread = new AtomicReference<>();
    WorkerLease worker =
        new WorkerLease(
            WorkerLock.singleProcess(),
            () -> {
              passThread.set(Thread.currentThread());
              passes.incrementAndGet();
              return 0;
            },
            RETRY,
            PASS,
            WorkerListener.NONE);
    worker.start();
    try {
      await(() -> passes.get() >= 3);
      assertThat(worker.state()).isEqualTo(WorkerState.ACTIVE);
    } finally {
      worker.close();
    }
    assertThat(worker.state()).isEqualTo(WorkerState.STOPPED);
    // close() has joined the worker thread: the only thread that runs passes is gone, so no pass
    // can follow (checked on the thread itself rather than by watching the count for a while).
    assertThat(passThread.get()).isNotNull();
    assertThat(passThread.get().isAlive()).isFalse();
  }

  @Test
  void losingTheLockStopsPassesUntilItIsRegained() throws Exception {
    AtomicBoolean available = new AtomicBoolean(true);
    AtomicBoolean held = new AtomicBoolean();
    AtomicInteger attempts = new AtomicInteger();
    WorkerLock lock =
        new WorkerLock() {
          @Override
          public boolean tryAcquire() {
            attempts.incrementAndGet();
            held.set(available.get());
            return held.get();
          }

          @Override
          public boolean isHeld() {
            return held.get() && available.get();
          }

          @Override
          public void close() {
            held.set(false);
          }
        };
    List<WorkerState> states = new CopyOnWriteArrayList<>();
    AtomicInteger passes = new AtomicInteger();
    WorkerListener listener =
        new WorkerListener() {
          @Override
          public void onStateChanged(WorkerState state) {
            states.add(state);
          }
        };
    WorkerLease worker = new WorkerLease(lock, counting(passes), RETRY, PASS, listener);
    worker.start();
    try {
      await(() -> passes.get() > 0);
      available.set(false); // e.g. the session died and someone else holds the lock now
      await(() -> worker.state() == WorkerState.STANDBY);
      int inStandby = passes.get();
      // Several standby retries (each a failed tryAcquire) go by without a pass: waited on the
      // retries themselves, not on a time that a slow machine may not give the worker.
      int attemptsInStandby = attempts.get();
      await(() -> attempts.get() >= attemptsInStandby + 3);
      assertThat(worker.state()).isEqualTo(WorkerState.STANDBY);
      assertThat(passes.get()).isEqualTo(inStandby);
      available.set(true);
      await(() -> passes.get() > inStandby);
      assertThat(states)
          .containsSubsequence(WorkerState.ACTIVE, WorkerState.STANDBY, WorkerState.ACTIVE);
    } finally {
      worker.close();
    }
  }

  private static PublicationPass counting(AtomicInteger passes) {
    return () -> {
      passes.incrementAndGet();
      return 0;
    };
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).isLessThan(until);
      Thread.sleep(5);
    }
  }
}
