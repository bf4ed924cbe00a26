package dev.qinglong.gateway.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The standby/active loop without a database, against an in-memory lock. */
class WorkerLeaseTest {
  private static final Duration RETRY = Duration.ofMillis(50);
  private static final Duration PASS = Duration.ofMillis(10);

  @Test
  void aSingleProcessWorkerIsActiveAndPublishes() throws Exception {
    AtomicInteger passes = new AtomicInteger();
    WorkerLease worker =
        new WorkerLease(
            WorkerLock.singleProcess(),
            WorkerLeaseTest.counting(passes),
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
    int afterClose = passes.get();
    Thread.sleep(PASS.toMillis() * 5);
    assertThat(passes.get()).isEqualTo(afterClose);
  }

  @Test
  void losingTheLockStopsPassesUntilItIsRegained() throws Exception {
    AtomicBoolean available = new AtomicBoolean(true);
    AtomicBoolean held = new AtomicBoolean();
    WorkerLock lock =
        new WorkerLock() {
          @Override
          public boolean tryAcquire() {
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
      Thread.sleep(RETRY.toMillis() * 4);
      assertThat(passes.get()).isEqualTo(inStandby);
      available.set(true);
      await(() -> passes.get() > inStandby);
      assertThat(states)
          .containsSubsequence(WorkerState.ACTIVE, WorkerState.STANDBY, WorkerState.ACTIVE);
    } finally {
      worker.close();
    }
  }

  private static CompletionPublisher counting(AtomicInteger passes) {
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
