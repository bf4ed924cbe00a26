package dev.qinglong.postgres.leases;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.ServingGate;
import dev.qinglong.gateway.lease.LeaseClock;
import dev.qinglong.gateway.lease.LeaseKeepAlive;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.LeaseLostException;
import dev.qinglong.gateway.lease.LeaseState;
import dev.qinglong.gateway.lease.LeaseStatus;
import dev.qinglong.gateway.lease.LeaseTimings;
import dev.qinglong.gateway.lease.LeaseWindow;
import dev.qinglong.gateway.lease.ModeConflictException;
import dev.qinglong.gateway.lease.PolicyMismatchException;
import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import dev.qinglong.gateway.lease.SlotBusyException;
import dev.qinglong.gateway.lease.SlotLease;
import java.util.UUID;

/**
 * A shared-download slot lease in PostgreSQL (docs/design.md#leases), and the {@link ServingGate}
 * of the process's download governor: the {@link SlotLease} state machine over a {@link
 * PostgresLeaseStorage}, kept going by a {@link LeaseKeepAlive}.
 *
 * <p>Start-up, on one dedicated connection that the lease keeps until it stops: takes the mode
 * barrier in shared mode (a standalone process holding it → {@link ModeConflictException}); slot 0
 * stores the policy if there is none and every slot requires it to equal its configuration (→
 * {@link PolicyMismatchException}); takes the slot if it is free or its reservation has expired on
 * the database clock, waiting up to {@code staleWait} for a stale, non-renewing reservation (a
 * renewing one → {@link SlotBusyException}).
 *
 * <p>Then a heartbeat renews every {@code heartbeat} with owner and generation as fencing, the
 * reservation lasting {@code databaseLease} on the database clock. The process may serve only
 * inside the {@link LeaseWindow}: {@code localValidity} from the start of the last successful
 * request, by both local clocks; a late answer never reopens it, and a watchdog closes the gate the
 * moment the window runs out. Loss is terminal ({@link LeaseState#LOST}; the process must restart).
 * If the dedicated connection breaks, the next heartbeat opens a new one and retakes the shared
 * barrier before renewing.
 */
public final class PostgresDownloadLease implements ServingGate, AutoCloseable {
  private final SlotLease lease;
  private final LeaseKeepAlive keepAlive;

  private PostgresDownloadLease(SlotLease lease, LeaseKeepAlive keepAlive) {
    this.lease = lease;
    this.keepAlive = keepAlive;
  }

  /**
   * Dedicated {@link java.sql.DriverManager} connections sized for these timings: connecting is
   * bounded by the local validity, a network read by twice the database lease (long enough for a
   * late renewal answer to be seen and counted, short enough to free the heartbeat thread).
   */
  public static DedicatedConnectionFactory connections(
      String jdbcUrl, String username, String password, LeaseTimings timings) {
    return DedicatedConnectionFactory.driverManager(
        jdbcUrl,
        username,
        password,
        "qinglong-download-lease",
        timings.localValidity(),
        timings.databaseLease().multipliedBy(2));
  }

  /**
   * Starts a lease on {@code slot} with the default timings and system clocks.
   *
   * @see #start(DedicatedConnectionFactory, SharedDownloadPolicy, int, LeaseTimings, LeaseClock,
   *     LeaseListener)
   */
  public static PostgresDownloadLease start(
      DedicatedConnectionFactory connections,
      SharedDownloadPolicy policy,
      int slot,
      LeaseListener listener) {
    return start(connections, policy, slot, LeaseTimings.DEFAULTS, LeaseClock.SYSTEM, listener);
  }

  /**
   * Starts a lease: barrier, policy, slot (see the class comment), then heartbeat and watchdog.
   * Blocks up to about {@code staleWait} (twice that if a slot other than 0 also waits for the
   * policy).
   *
   * @param policy this process's configuration: total rates and slot count
   * @param slot this process's slot, {@code 0 <= slot < policy.slots()}
   * @return an {@link LeaseState#ACTIVE} lease
   * @throws ModeConflictException if a standalone process holds the mode barrier
   * @throws PolicyMismatchException if the stored policy differs, or none appears in time
   * @throws SlotBusyException if a live owner holds the slot, or its reservation does not expire in
   *     time
   * @throws LeaseLostException if the acquisition's answer came after its whole local window
   * @throws StoreUnavailableException if the database fails during start-up
   * @throws IllegalArgumentException if {@code slot} is out of range
   */
  public static PostgresDownloadLease start(
      DedicatedConnectionFactory connections,
      SharedDownloadPolicy policy,
      int slot,
      LeaseTimings timings,
      LeaseClock clock,
      LeaseListener listener) {
    SlotLease lease =
        new SlotLease(
            new PostgresLeaseStorage(connections), policy, slot, timings, clock, listener);
    lease.acquire();
    return new PostgresDownloadLease(lease, LeaseKeepAlive.start(lease, clock));
  }

  /** This process's fixed share: floor(rate / slots) for both rates. */
  public DownloadRates share() {
    return lease.share();
  }

  /** The policy (equal to the stored one). */
  public SharedDownloadPolicy policy() {
    return lease.policy();
  }

  /** This start's owner UUID. */
  public UUID owner() {
    return lease.owner();
  }

  /** The slot generation this owner holds. */
  public long generation() {
    return lease.generation();
  }

  /** The lease's state. */
  public LeaseState state() {
    return lease.state();
  }

  /** A snapshot for readiness and metrics. */
  public LeaseStatus status() {
    return lease.status();
  }

  /** {@code true} only while {@link LeaseState#ACTIVE} and inside the local window. */
  @Override
  public boolean mayServe() {
    return lease.mayServe();
  }

  /**
   * Stops renewing and closes the dedicated connection. The reservation stays in the database until
   * it expires, so a restart of this slot waits for it (at most {@code databaseLease}). Idempotent.
   */
  @Override
  public void close() {
    // The lease first: it aborts a renewal in flight, so the heartbeat stops at once.
    lease.close();
    keepAlive.close();
  }
}
