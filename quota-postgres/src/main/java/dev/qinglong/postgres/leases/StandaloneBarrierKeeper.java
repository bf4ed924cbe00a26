package dev.qinglong.postgres.leases;

import dev.qinglong.gateway.lease.ModeConflictException;
import dev.qinglong.gateway.lease.StandaloneBarrierHeldException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a standalone process's download mode barrier
 * (docs/design.md#standalone-and-shared-downloads) while the process runs: a background check every
 * {@code period} asks the barrier's session whether it still holds it, and re-takes it on a new
 * session when the old one died (terminated, database restarted, network reset). A process that
 * started while another standalone server held the barrier keeps trying too, so it takes over when
 * that server stops. Payload may flow only in {@link State#HELD}.
 */
public final class StandaloneBarrierKeeper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StandaloneBarrierKeeper.class);

  /** The default interval of the background check. */
  public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(2);

  /** What this process knows about the barrier. */
  public enum State {
    /** This process holds it: it is the database's standalone download server. */
    HELD,
    /** Another standalone download server holds it: this process serves no payload. */
    HELD_ELSEWHERE,
    /** Lost (session died) and not yet re-taken (database unreachable, mode conflict). */
    NOT_HELD
  }

  private final DedicatedConnectionFactory connections;
  private final boolean ignoreStoredSharedPolicy;
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "qinglong-standalone-barrier");
            t.setDaemon(true);
            return t;
          });
  // Set by start, then written by the check thread only.
  private volatile PostgresStandaloneDownloadBarrier barrier;
  private volatile State state = State.HELD;
  private volatile boolean closed;

  private StandaloneBarrierKeeper(
      DedicatedConnectionFactory connections, boolean ignoreStoredSharedPolicy) {
    this.connections = connections;
    this.ignoreStoredSharedPolicy = ignoreStoredSharedPolicy;
  }

  /**
   * Takes the barrier (or finds it held by another standalone server) and starts the background
   * check.
   *
   * @throws ModeConflictException as {@link PostgresStandaloneDownloadBarrier#acquire} (refuse the
   *     start)
   * @throws dev.qinglong.core.kernel.StoreUnavailableException if the database fails at start
   */
  public static StandaloneBarrierKeeper start(
      DedicatedConnectionFactory connections, boolean ignoreStoredSharedPolicy, Duration period) {
    Objects.requireNonNull(connections, "connections");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be positive");
    }
    StandaloneBarrierKeeper keeper =
        new StandaloneBarrierKeeper(connections, ignoreStoredSharedPolicy);
    try {
      keeper.barrier =
          PostgresStandaloneDownloadBarrier.acquire(connections, ignoreStoredSharedPolicy);
    } catch (StandaloneBarrierHeldException e) {
      keeper.state = State.HELD_ELSEWHERE;
    }
    long ms = period.toMillis();
    keeper.scheduler.scheduleWithFixedDelay(keeper::check, ms, ms, TimeUnit.MILLISECONDS);
    return keeper;
  }

  /** The state as of the last check. */
  public State state() {
    return state;
  }

  /** Whether payload may flow: this process held the barrier at the last check. */
  public boolean held() {
    return state == State.HELD;
  }

  /** One check: keep, or re-take, the barrier. Runs on the keeper's thread only. */
  void check() {
    if (closed) {
      return;
    }
    try {
      PostgresStandaloneDownloadBarrier current = barrier;
      if (current != null && current.isHeld()) {
        state = State.HELD;
        return;
      }
      if (current != null) {
        // Its session is gone (or unreachable): stop serving before anything else.
        state = State.NOT_HELD;
        barrier = null;
        current.close();
        log.warn("downloads.standalone-barrier-lost: payload stops until it is re-taken");
      }
      State before = state;
      try {
        PostgresStandaloneDownloadBarrier taken =
            PostgresStandaloneDownloadBarrier.acquire(connections, ignoreStoredSharedPolicy);
        if (closed) {
          taken.close();
          return;
        }
        barrier = taken;
        state = State.HELD;
        log.info("downloads.standalone-barrier-taken: this process serves downloads");
      } catch (StandaloneBarrierHeldException e) {
        state = State.HELD_ELSEWHERE;
        if (before != State.HELD_ELSEWHERE) {
          log.warn(
              "downloads.standalone-elsewhere: another standalone download server took the"
                  + " barrier; this process serves no downloads");
        }
      } catch (ModeConflictException e) {
        state = State.NOT_HELD;
        log.warn("downloads.standalone-barrier-refused: {}", e.getMessage());
      } catch (RuntimeException e) {
        state = State.NOT_HELD;
        log.warn("downloads.standalone-barrier-unavailable: {}", e.getMessage());
      }
    } catch (RuntimeException e) {
      state = State.NOT_HELD;
      log.warn("downloads.standalone-barrier-check-failed: {}", e.toString());
    }
  }

  /** Stops the check and releases the barrier (closes its session). Idempotent. */
  @Override
  public void close() {
    closed = true;
    scheduler.shutdownNow();
    try {
      scheduler.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    PostgresStandaloneDownloadBarrier current = barrier;
    barrier = null;
    if (current != null) {
      current.close();
    }
  }
}
