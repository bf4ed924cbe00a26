package dev.qinglong.gateway.worker;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the publication worker under a {@link WorkerLock} (docs/design.md#publication-worker):
 * exactly one active worker per database. A worker that finds the lock taken logs {@code
 * worker.standby} once and retries every {@code standbyRetry} (default 5 s); it takes over when the
 * active worker's lock is released or its database session dies. While active it checks, before
 * every pass, that it still holds the lock, and falls back to standby if not.
 *
 * <p>The check and the pass are not atomic: around a take-over two workers may run one pass each at
 * the same time. That is why {@link PublicationPass#publishOnce()} must be idempotent; the lock
 * keeps the work from running in parallel, it is not fencing.
 */
public final class WorkerLease implements AutoCloseable {
  public static final Duration DEFAULT_STANDBY_RETRY = Duration.ofSeconds(5);
  public static final Duration DEFAULT_PASS_INTERVAL = Duration.ofSeconds(2);

  private static final Logger log = LoggerFactory.getLogger(WorkerLease.class);

  private final WorkerLock lock;
  private final PublicationPass publisher;
  private final WorkerListener listener;
  private final long standbyRetryMillis;
  private final long passIntervalMillis;
  private final Thread thread;
  private volatile WorkerState state = WorkerState.NEW;
  private volatile boolean stopping;

  /**
   * @param lock the database lock; closed by {@link #close()}
   * @param publisher one idempotent publication pass
   * @param standbyRetry how often a standby worker retries the lock
   * @param passInterval the pause between passes of the active worker
   * @param listener state and pass hooks
   */
  public WorkerLease(
      WorkerLock lock,
      PublicationPass publisher,
      Duration standbyRetry,
      Duration passInterval,
      WorkerListener listener) {
    this.lock = Objects.requireNonNull(lock, "lock");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.standbyRetryMillis = positiveMillis(standbyRetry, "standbyRetry");
    this.passIntervalMillis = positiveMillis(passInterval, "passInterval");
    this.thread = new Thread(this::run, "publication-worker");
    this.thread.setDaemon(true);
  }

  /** Starts the worker thread. */
  public synchronized void start() {
    if (state != WorkerState.NEW) {
      throw new IllegalStateException("already started");
    }
    thread.start();
  }

  /** The current state. */
  public WorkerState state() {
    return state;
  }

  /** Stops the worker thread, then releases the lock. Idempotent. */
  @Override
  public void close() {
    stopping = true;
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    lock.close();
    setState(WorkerState.STOPPED);
  }

  private void run() {
    boolean standbyLogged = false;
    try {
      while (!stopping) {
        if (state != WorkerState.ACTIVE) {
          if (tryAcquire()) {
            log.info("worker.active: this process holds the publication-worker lock");
            standbyLogged = false;
            setState(WorkerState.ACTIVE);
            continue;
          }
          if (!standbyLogged) {
            // Once per standby period: a standby worker is normal, not an error to repeat.
            log.info(
                "worker.standby: another worker is active; retrying every {} ms",
                standbyRetryMillis);
            standbyLogged = true;
          }
          setState(WorkerState.STANDBY);
          Thread.sleep(standbyRetryMillis);
          continue;
        }
        if (!lock.isHeld()) {
          log.warn("worker.lock-lost: the publication-worker lock is no longer held; standby");
          lock.close();
          setState(WorkerState.STANDBY);
          continue;
        }
        pass();
        Thread.sleep(passIntervalMillis);
      }
    } catch (InterruptedException e) {
      // close() interrupts: leave quietly.
    }
  }

  private boolean tryAcquire() {
    try {
      return lock.tryAcquire();
    } catch (StoreUnavailableException e) {
      log.warn("worker lock could not be checked; retrying: {}", e.getMessage());
      return false;
    }
  }

  private void pass() {
    try {
      int published = publisher.publishOnce();
      notifyListener(() -> listener.onPass(published));
    } catch (RuntimeException e) {
      log.warn("publication pass failed; retrying on the next pass", e);
      notifyListener(() -> listener.onPassFailed(e));
    }
  }

  private void setState(WorkerState next) {
    if (state != next) {
      state = next;
      notifyListener(() -> listener.onStateChanged(next));
    }
  }

  private static void notifyListener(Runnable hook) {
    try {
      hook.run();
    } catch (RuntimeException e) {
      log.warn("worker listener failed; ignored", e);
    }
  }

  private static long positiveMillis(Duration d, String name) {
    if (d.toMillis() < 1) {
      throw new IllegalArgumentException(name + " must be >= 1 ms, was " + d);
    }
    return d.toMillis();
  }
}
