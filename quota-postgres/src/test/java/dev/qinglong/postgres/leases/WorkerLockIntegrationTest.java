package dev.qinglong.postgres.leases;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.qinglong.gateway.worker.WorkerLease;
import dev.qinglong.gateway.worker.WorkerListener;
import dev.qinglong.gateway.worker.WorkerLock;
import dev.qinglong.gateway.worker.WorkerState;
import dev.qinglong.testkit.TcpProxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Two publication workers on one database, each with its own dedicated lock connection: exactly one
 * is active, the other waits in standby (logging it once) and takes over when the active one's
 * session ends. The standby retry is shortened from 5 s to 200 ms; the default is checked apart.
 */
class WorkerLockIntegrationTest {
  private static final Duration RETRY = Duration.ofMillis(200);
  private static final Duration PASS = Duration.ofMillis(50);

  private GatewayFixture db;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger workerLog = (Logger) LoggerFactory.getLogger(WorkerLease.class);

  @BeforeEach
  void setUp() {
    db = new GatewayFixture("worker");
    logs.start();
    workerLog.addAppender(logs);
  }

  @AfterEach
  void tearDown() throws Exception {
    workerLog.detachAppender(logs);
    db.close();
  }

  private PostgresWorkerLock lock(String name) {
    return lock(name, db.database().jdbcUrl());
  }

  private PostgresWorkerLock lock(String name, String url) {
    return new PostgresWorkerLock(
        DedicatedConnectionFactory.driverManager(
            url,
            db.database().username(),
            db.database().password(),
            name,
            Duration.ofSeconds(5),
            Duration.ofSeconds(10)));
  }

  @Test
  void theDefaultStandbyRetryIsFiveSeconds() {
    assertThat(WorkerLease.DEFAULT_STANDBY_RETRY).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void onlyOneLockHolderPerDatabase() {
    try (PostgresWorkerLock a = lock("worker-a");
        PostgresWorkerLock b = lock("worker-b")) {
      assertThat(a.tryAcquire()).isTrue();
      assertThat(a.tryAcquire()).isTrue(); // re-entrant for its holder
      assertThat(b.tryAcquire()).isFalse();
      assertThat(a.isHeld()).isTrue();
      assertThat(b.isHeld()).isFalse();
      a.close();
      assertThat(a.isHeld()).isFalse();
      assertThat(b.tryAcquire()).isTrue();
    }
  }

  @Test
  void oneActiveWorkerTheOtherInStandbyThenTakeOverWhenTheFirstCloses() throws Exception {
    AtomicInteger passesA = new AtomicInteger();
    AtomicInteger passesB = new AtomicInteger();
    AtomicReference<Thread> threadA = new AtomicReference<>();
    AtomicInteger attemptsB = new AtomicInteger();
    WorkerLease a =
        new WorkerLease(
            lock("worker-a"), counting(passesA, threadA), RETRY, PASS, WorkerListener.NONE);
    a.start();
    await(() -> a.state() == WorkerState.ACTIVE, "a active");
    WorkerLease b =
        new WorkerLease(
            counting(lock("worker-b"), attemptsB),
            counting(passesB),
            RETRY,
            PASS,
            WorkerListener.NONE);
    b.start();
    try {
      await(() -> b.state() == WorkerState.STANDBY, "b standby");
      // Several retries go by (waited on b's lock attempts, not on a time); the standby still
      // publishes nothing and has logged it once.
      int attempts = attemptsB.get();
      await(() -> attemptsB.get() >= attempts + 4, "b retried several times");
      assertThat(b.state()).isEqualTo(WorkerState.STANDBY);
      assertThat(passesB).hasValue(0);
      assertThat(passesA.get()).isPositive();
      assertThat(standbyLogLines()).isEqualTo(1);

      a.close();
      await(() -> b.state() == WorkerState.ACTIVE, "b took over");
      int passesAAtClose = passesA.get();
      await(() -> passesB.get() > 0, "b publishes");
      // a.close() joined a's worker thread, the only thread that runs a's passes: none can follow.
      assertThat(threadA.get().isAlive()).isFalse();
      assertThat(passesA.get()).isEqualTo(passesAAtClose);
      assertThat(a.state()).isEqualTo(WorkerState.STOPPED);
    } finally {
      b.close();
      a.close();
    }
  }

  @Test
  void theStandbyTakesOverWhenTheActiveWorkersSessionDies() throws Exception {
    AtomicInteger passesA = new AtomicInteger();
    AtomicInteger passesB = new AtomicInteger();
    AtomicInteger attemptsA = new AtomicInteger();
    TcpProxy network = db.proxy();
    WorkerLease a =
        new WorkerLease(
            counting(lock("worker-a", db.urlThrough(network)), attemptsA),
            counting(passesA),
            RETRY,
            PASS,
            WorkerListener.NONE);
    WorkerLease b =
        new WorkerLease(lock("worker-b"), counting(passesB), RETRY, PASS, WorkerListener.NONE);
    try {
      a.start();
      await(() -> a.state() == WorkerState.ACTIVE, "a active");
      b.start();
      await(() -> b.state() == WorkerState.STANDBY, "b standby");

      // The active worker's connection is cut and it cannot reconnect (as after a crash or a
      // partition): PostgreSQL ends its session, which releases the lock.
      network.cut();
      await(() -> b.state() == WorkerState.ACTIVE, "b took over");
      // a noticed it lost the lock and went back to standby rather than publishing on.
      await(() -> a.state() == WorkerState.STANDBY, "a back in standby");
      int passesAInStandby = passesA.get();
      // a retries the lock (through the cut network) several times and publishes nothing.
      int attempts = attemptsA.get();
      await(() -> attemptsA.get() >= attempts + 3, "a retried several times");
      assertThat(a.state()).isEqualTo(WorkerState.STANDBY);
      assertThat(passesA.get()).isEqualTo(passesAInStandby);
      assertThat(passesB.get()).isPositive();
      // Once for b's standby, once for a's, however many retries went by.
      assertThat(standbyLogLines()).isEqualTo(2);
    } finally {
      a.close();
      b.close();
    }
  }

  @Test
  void aFailingPassIsRetriedWhileActive() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    WorkerListener listener =
        new WorkerListener() {
          @Override
          public void onPassFailed(RuntimeException cause) {
            failures.incrementAndGet();
          }
        };
    WorkerLease worker =
        new WorkerLease(
            lock("worker-a"),
            () -> {
              if (attempts.incrementAndGet() < 3) {
                throw new IllegalStateException("store unavailable");
              }
              return 1;
            },
            RETRY,
            PASS,
            listener);
    try {
      worker.start();
      await(() -> attempts.get() >= 4, "passes go on after failures");
      assertThat(failures).hasValue(2);
      assertThat(worker.state()).isEqualTo(WorkerState.ACTIVE);
    } finally {
      worker.close();
    }
  }

  private long standbyLogLines() {
    // The workers keep logging: AppenderBase appends while holding the appender's monitor.
    synchronized (logs) {
      return logs.list.stream()
          .filter(e -> e.getFormattedMessage().startsWith("worker.standby"))
          .count();
    }
  }

  private static dev.qinglong.gateway.worker.PublicationPass counting(AtomicInteger passes) {
    return counting(passes, new AtomicReference<>());
  }

  /** Counts passes and remembers the thread that runs them. */
  private static dev.qinglong.gateway.worker.PublicationPass counting(
      AtomicInteger passes, AtomicReference<Thread> passThread) {
    return () -> {
      passThread.set(Thread.currentThread());
      passes.incrementAndGet();
      return 0;
    };
  }

  /** The lock, counting the worker's attempts to take it (one per standby retry). */
  private static WorkerLock counting(WorkerLock lock, AtomicInteger attempts) {
    return new WorkerLock() {
      @Override
      public boolean tryAcquire() {
        attempts.incrementAndGet();
        return lock.tryAcquire();
      }

      @Override
      public boolean isHeld() {
        return lock.isHeld();
      }

      @Override
      public void close() {
        lock.close();
      }
    };
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(until);
      Thread.sleep(20);
    }
  }
}
