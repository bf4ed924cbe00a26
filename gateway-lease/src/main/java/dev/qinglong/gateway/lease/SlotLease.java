package dev.qinglong.gateway.lease;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.ServingGate;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine of one shared-download slot lease (docs/design.md#leases), over a {@link
 * LeaseStorage} and a {@link LeaseClock}; no database and no threads of its own. {@link #acquire()}
 * runs the start-up protocol ({@link SlotAcquisition}); then a driver ({@link LeaseKeepAlive})
 * calls {@link #renew()} every heartbeat and {@link #checkWindow()} often.
 *
 * <p>Every renewal carries this start's {@link #owner()} and {@link #generation()} as fencing. The
 * process may serve only inside the {@link LeaseWindow}: {@code localValidity} from the
 * <em>start</em> of the last successful request, by both the monotonic and the wall clock. A
 * renewal answer that arrives after the window closed does not reopen it, even if the database said
 * yes.
 *
 * <p>Loss is terminal: a fenced renewal, a late answer, an expired window or a barrier that cannot
 * be retaken moves the lease to {@link LeaseState#LOST}; {@link #mayServe()} is {@code false} from
 * then on, {@link LeaseListener#onLost} fires once, and the process must restart. A database error
 * during a renewal is not a loss by itself: the next renewal opens a new session and retakes the
 * barrier, while the window keeps running.
 *
 * <p>Thread-safe: one driver thread calls {@link #acquire()}, then {@link #renew()} and {@link
 * #endSession()}; any thread may call the others.
 */
public final class SlotLease implements ServingGate {
  private static final Logger log = LoggerFactory.getLogger(SlotLease.class);

  private final LeaseStorage storage;
  private final SharedDownloadPolicy policy;
  private final int slot;
  private final LeaseTimings timings;
  private final LeaseClock clock;
  private final LeaseListener listener;
  private final UUID owner = UUID.randomUUID();
  private final LeaseWindow window;
  private final AtomicReference<LeaseState> state = new AtomicReference<>(LeaseState.ACTIVE);
  private final AtomicLong renewals = new AtomicLong();
  private final AtomicLong failedRenewals = new AtomicLong();
  private final AtomicLong lateAnswers = new AtomicLong();
  private volatile boolean acquired;
  private volatile boolean sessionOpen;
  private volatile long generation;
  private volatile String lossReason;

  /**
   * @param storage the database side; closed by {@link #close()} and by a failed {@link #acquire()}
   * @param policy this process's configuration: total rates and slot count
   * @param slot this process's slot, {@code 0 <= slot < policy.slots()}
   * @throws IllegalArgumentException if {@code slot} is out of range
   */
  public SlotLease(
      LeaseStorage storage,
      SharedDownloadPolicy policy,
      int slot,
      LeaseTimings timings,
      LeaseClock clock,
      LeaseListener listener) {
    this.storage = Objects.requireNonNull(storage, "storage");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.timings = Objects.requireNonNull(timings, "timings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.listener = Objects.requireNonNull(listener, "listener");
    if (slot < 0 || slot >= policy.slots()) {
      throw new IllegalArgumentException(
          "qinglong.downloads.slot must be 0.." + (policy.slots() - 1) + ", was " + slot);
    }
    this.slot = slot;
    this.window = new LeaseWindow(clock, timings.localValidity());
  }

  /**
   * Takes the lease: shared mode barrier, policy, slot (see {@link SlotAcquisition}). Blocks up to
   * about {@code staleWait} (twice that if a slot other than 0 also waits for the policy). On any
   * failure the storage is closed and the lease is {@link LeaseState#CLOSED}.
   *
   * @throws ModeConflictException if a standalone process holds the mode barrier
   * @throws PolicyMismatchException if the stored policy differs, or none appears in time
   * @throws SlotBusyException if a live owner holds the slot, or its reservation does not expire in
   *     time, or the wait is interrupted
   * @throws LeaseLostException if the acquisition's answer came after its whole local window
   * @throws StoreUnavailableException if the database fails during start-up
   * @throws IllegalStateException if called twice
   */
  public void acquire() {
    if (acquired || state.get() != LeaseState.ACTIVE) {
      throw new IllegalStateException("acquire() called twice. Indicates a bug.");
    }
    try {
      SlotAcquisition acquisition =
          new SlotAcquisition(storage, policy, slot, owner, timings, clock);
      acquisition.joinSharedMode();
      sessionOpen = true;
      acquisition.checkPolicy();
      SlotAcquisition.Taken taken = acquisition.takeSlot(window);
      generation = taken.generation();
      acquired = true;
      if (!window.open(taken.start())) {
        throw new LeaseLostException(
            "slot "
                + slot
                + " was acquired, but the answer came after the whole local validity window");
      }
      notifyListener(() -> listener.onWindowStarted(slot, taken.start().nanos()));
    } catch (StoreUnavailableException e) {
      abandon();
      throw new StoreUnavailableException(
          "shared download lease of slot " + slot + " could not start: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      abandon();
      throw e;
    }
    log.info(
        "download lease acquired: slot {} of {}, generation {}, owner {}, share {}",
        slot,
        policy.slots(),
        generation,
        owner,
        share());
  }

  /**
   * One renewal attempt (the heartbeat). Reopens the session first if the previous attempt failed;
   * then renews with owner and generation and applies the answer to the window. Does nothing unless
   * {@link LeaseState#ACTIVE}.
   *
   * @return {@code false} only if the attempt failed with a database error (retry soon); {@code
   *     true} otherwise, including when it lost the lease
   */
  public boolean renew() {
    if (!acquired) {
      throw new IllegalStateException("renew() before acquire(). Indicates a bug.");
    }
    if (state.get() != LeaseState.ACTIVE) {
      return true;
    }
    // Taken before anything is sent: the window runs from the start of the request.
    LeaseWindow.Start start = window.begin();
    try {
      if (!sessionOpen) {
        if (!storage.openSession()) {
          lose("the download mode barrier could not be retaken after a reconnect");
          return true;
        }
        sessionOpen = true;
        if (state.get() != LeaseState.ACTIVE) {
          endSession();
          return true;
        }
      }
      boolean renewed = storage.renew(slot, owner, generation, timings.databaseLease());
      if (state.get() == LeaseState.CLOSED) {
        return true;
      }
      if (!renewed) {
        lose(
            "the database refused the renewal: the reservation expired or another owner holds"
                + " the slot");
        return true;
      }
      if (!window.renewed(start)) {
        // The database said yes, but too late: the window had already closed. Never revive.
        lateAnswers.incrementAndGet();
        lose("a renewal answer arrived after the local validity window had ended");
        return true;
      }
      renewals.incrementAndGet();
      notifyListener(() -> listener.onWindowStarted(slot, start.nanos()));
      notifyListener(() -> listener.onRenewed(slot, generation));
      return true;
    } catch (StoreUnavailableException e) {
      if (state.get() != LeaseState.ACTIVE) {
        return true; // close() ended the session under it, or the lease is already lost.
      }
      failedRenewals.incrementAndGet();
      log.warn(
          "renewal of download slot {} failed ({}); retrying soon on a new session",
          slot,
          e.getMessage());
      endSession();
      notifyListener(() -> listener.onRenewalFailed(slot, e));
      return false;
    }
  }

  /** Loses the lease if it is active but its local window has run out (the watchdog). */
  public void checkWindow() {
    if (state.get() == LeaseState.ACTIVE && !window.isValid()) {
      lose(
          "local validity expired: no renewal started within the last "
              + timings.localValidity().toMillis()
              + " ms succeeded in time");
    }
  }

  /**
   * Ends the database session once renewing has stopped; the reservation stays until it expires.
   * Called by the renewing thread only.
   */
  public void endSession() {
    sessionOpen = false;
    storage.endSession();
  }

  /**
   * Stops serving and closes the storage, aborting a renewal in flight. The reservation stays in
   * the database until it expires, so a restart of this slot waits for it (at most {@code
   * databaseLease}). Idempotent.
   */
  public void close() {
    if (state.compareAndSet(LeaseState.ACTIVE, LeaseState.CLOSED)) {
      log.info("download lease of slot {} closed; its reservation expires in the database", slot);
    }
    window.close();
    storage.close();
  }

  /** {@code true} only while {@link LeaseState#ACTIVE} and inside the local window. */
  @Override
  public boolean mayServe() {
    return state.get() == LeaseState.ACTIVE && window.isValid();
  }

  /** A snapshot for readiness and metrics. */
  public LeaseStatus status() {
    return new LeaseStatus(
        slot,
        owner,
        generation,
        state.get(),
        mayServe(),
        renewals.get(),
        failedRenewals.get(),
        lateAnswers.get(),
        lossReason);
  }

  /** This process's fixed share: floor(rate / slots) for both rates. */
  public DownloadRates share() {
    return policy.share();
  }

  /** The policy (equal to the stored one once acquired). */
  public SharedDownloadPolicy policy() {
    return policy;
  }

  /** The slot. */
  public int slot() {
    return slot;
  }

  /** This start's owner UUID. */
  public UUID owner() {
    return owner;
  }

  /** The slot generation this owner holds (0 before acquisition). */
  public long generation() {
    return generation;
  }

  /** The lease's state. */
  public LeaseState state() {
    return state.get();
  }

  /** The timings. */
  public LeaseTimings timings() {
    return timings;
  }

  private void abandon() {
    state.set(LeaseState.CLOSED);
    window.close();
    sessionOpen = false;
    storage.close();
  }

  private void lose(String reason) {
    if (!state.compareAndSet(LeaseState.ACTIVE, LeaseState.LOST)) {
      return;
    }
    window.close();
    lossReason = reason;
    log.error(
        "download lease LOST: slot {}, generation {}: {}. Payload stopped; restart the process.",
        slot,
        generation,
        reason);
    notifyListener(() -> listener.onLost(slot, reason));
  }

  private static void notifyListener(Runnable hook) {
    try {
      hook.run();
    } catch (RuntimeException e) {
      log.warn("lease listener failed; ignored", e);
    }
  }
}
