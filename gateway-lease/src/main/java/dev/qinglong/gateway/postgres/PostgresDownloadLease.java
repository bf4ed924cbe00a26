package dev.qinglong.gateway.postgres;

import dev.qinglong.core.model.StoreUnavailableException;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.ServingGate;
import dev.qinglong.gateway.lease.LeaseClock;
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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared-download slot lease in PostgreSQL (ADR 002 and its 2026-10-03 addendum), and the {@link
 * ServingGate} of the process's download governor.
 *
 * <p>Start-up, on one dedicated connection that the lease keeps until it stops:
 *
 * <ol>
 *   <li>takes the mode barrier in shared mode (a session advisory lock); a standalone process
 *       holding it exclusively → {@link ModeConflictException};
 *   <li>slot 0 stores the policy if there is none; every slot then requires the stored policy to
 *       equal its configuration → otherwise {@link PolicyMismatchException} (a slot other than 0
 *       waits up to {@code staleWait} for slot 0 to store it);
 *   <li>takes the slot if it is free or its reservation has expired on the database clock (the
 *       generation goes up by one). A reservation that is still live is watched for up to {@code
 *       staleWait}: if it is being renewed (its holder is alive) → {@link SlotBusyException} within
 *       about one heartbeat; if it just sits there (a stopped holder) the slot is taken once it
 *       expires; if it does not expire in time → {@link SlotBusyException}.
 * </ol>
 *
 * <p>Then a heartbeat thread renews every {@code heartbeat} with {@code owner} and {@code
 * generation} as fencing, the reservation lasting {@code databaseLease} on the database clock. The
 * process may serve only inside the {@link LeaseWindow}: {@code localValidity} from the start of
 * the last successful request, by both the monotonic and the wall clock. A renewal answer that
 * arrives after the window closed does not reopen it, even if the database said yes. A watchdog
 * closes the gate the moment the window runs out, even while a renewal hangs on a dead network.
 *
 * <p>Loss is terminal: a refused renewal, a late answer, an expired window or a lost barrier moves
 * the lease to {@link LeaseState#LOST}, {@link #mayServe()} is {@code false} from then on, {@link
 * LeaseListener#onLost} fires once, and the process must restart. {@link #close()} stops renewing
 * but leaves the reservation to expire in the database (ADR 002: bytes already handed to the
 * network may still be on their way).
 *
 * <p>If the dedicated connection breaks, the next heartbeat opens a new dedicated connection and
 * retakes the shared barrier before renewing; the window keeps running meanwhile.
 */
public final class PostgresDownloadLease implements ServingGate, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PostgresDownloadLease.class);

  private final DedicatedConnectionFactory connections;
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
  private volatile Connection connection;
  private volatile long generation;
  private volatile String lossReason;
  private Thread heartbeat;
  private ScheduledExecutorService watchdog;

  private PostgresDownloadLease(
      DedicatedConnectionFactory connections,
      SharedDownloadPolicy policy,
      int slot,
      LeaseTimings timings,
      LeaseClock clock,
      LeaseListener listener) {
    this.connections = Objects.requireNonNull(connections, "connections");
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
    PostgresDownloadLease lease =
        new PostgresDownloadLease(connections, policy, slot, timings, clock, listener);
    try {
      lease.connection = lease.openWithBarrier();
      if (lease.connection == null) {
        throw new ModeConflictException(
            "the download mode barrier is held by a standalone process: standalone and shared"
                + " downloads never mix; stop it first");
      }
      lease.checkPolicy();
      lease.acquireSlot();
    } catch (SQLException e) {
      lease.state.set(LeaseState.CLOSED);
      lease.dropConnection();
      throw new StoreUnavailableException(
          "shared download lease of slot "
              + slot
              + " could not start (SQLState "
              + e.getSQLState()
              + ")",
          e);
    } catch (RuntimeException e) {
      lease.state.set(LeaseState.CLOSED);
      lease.dropConnection();
      throw e;
    }
    lease.startThreads();
    log.info(
        "download lease acquired: slot {} of {}, generation {}, owner {}, share {}",
        slot,
        policy.slots(),
        lease.generation,
        lease.owner,
        lease.share());
    return lease;
  }

  /** This process's fixed share: floor(rate / slots) for both rates. */
  public DownloadRates share() {
    return policy.share();
  }

  /** The policy (equal to the stored one). */
  public SharedDownloadPolicy policy() {
    return policy;
  }

  /** The slot held. */
  public int slot() {
    return slot;
  }

  /** This start's owner UUID. */
  public UUID owner() {
    return owner;
  }

  /** The slot generation this owner holds. */
  public long generation() {
    return generation;
  }

  /** The lease's state. */
  public LeaseState state() {
    return state.get();
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

  /** {@code true} only while {@link LeaseState#ACTIVE} and inside the local window. */
  @Override
  public boolean mayServe() {
    return state.get() == LeaseState.ACTIVE && window.isValid();
  }

  /**
   * Stops renewing and closes the dedicated connection. The reservation stays in the database until
   * it expires, so a restart of this slot waits for it (at most {@code databaseLease}). Idempotent.
   */
  @Override
  public void close() {
    if (state.compareAndSet(LeaseState.ACTIVE, LeaseState.CLOSED)) {
      log.info("download lease of slot {} closed; its reservation expires in the database", slot);
    }
    window.close();
    if (watchdog != null) {
      watchdog.shutdownNow();
    }
    Connection c = connection;
    if (c != null) {
      try {
        // abort, not close: it does not wait for a statement stuck on a dead network.
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        log.debug("aborting the lease connection failed", e);
      }
    }
    if (heartbeat != null && heartbeat != Thread.currentThread()) {
      heartbeat.interrupt();
      try {
        heartbeat.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    dropConnection();
  }

  // ---- start-up

  /** A new dedicated connection holding the shared barrier, or null if standalone holds it. */
  private Connection openWithBarrier() throws SQLException {
    Connection c = connections.open();
    try (PreparedStatement ps = c.prepareStatement(GatewaySql.TRY_SHARED_LOCK)) {
      ps.setInt(1, GatewaySql.LOCK_CLASS);
      ps.setInt(2, GatewaySql.MODE_BARRIER);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getBoolean(1)) {
          return c;
        }
      }
    } catch (SQLException | RuntimeException e) {
      closeQuietly(c);
      throw e;
    }
    closeQuietly(c);
    return null;
  }

  private void checkPolicy() throws SQLException {
    if (slot == 0) {
      try (PreparedStatement ps = connection.prepareStatement(GatewaySql.INSERT_POLICY)) {
        ps.setLong(1, policy.rateBytesPerSecond());
        ps.setLong(2, policy.perPrincipalBytesPerSecond());
        ps.setInt(3, policy.slots());
        ps.setObject(4, owner);
        if (ps.executeUpdate() == 1) {
          log.info("shared download policy stored by slot 0: {}", policy);
        }
      }
    }
    long deadline = clock.nanoTime() + timings.staleWait().toNanos();
    while (true) {
      SharedDownloadPolicy stored = readPolicy();
      if (stored != null) {
        if (!stored.equals(policy)) {
          throw new PolicyMismatchException(
              "the stored shared download policy "
                  + describe(stored)
                  + " differs from this process's configuration "
                  + describe(policy)
                  + "; every gateway must use the same values, and the policy changes only"
                  + " offline");
        }
        return;
      }
      if (clock.nanoTime() - deadline >= 0) {
        throw new PolicyMismatchException(
            "no shared download policy is stored: slot 0 did not create it within "
                + timings.staleWait().toSeconds()
                + " s; start slot 0 first");
      }
      sleep(timings.stalePoll());
    }
  }

  private SharedDownloadPolicy readPolicy() throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(GatewaySql.READ_POLICY);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      try {
        return new SharedDownloadPolicy(rs.getLong(1), rs.getLong(2), rs.getInt(3));
      } catch (IllegalArgumentException e) {
        throw new PolicyMismatchException("the stored shared download policy is invalid: " + e);
      }
    }
  }

  private void acquireSlot() throws SQLException {
    long deadline = clock.nanoTime() + timings.staleWait().toNanos();
    Holder first = null;
    while (true) {
      LeaseWindow.Start start = window.begin();
      Long acquired = tryAcquire();
      if (acquired != null) {
        generation = acquired;
        if (!window.open(start)) {
          throw new LeaseLostException(
              "slot "
                  + slot
                  + " was acquired, but the answer came after the whole local validity window");
        }
        return;
      }
      Holder holder = readHolder();
      if (holder != null) {
        if (first == null) {
          first = holder;
          log.info(
              "slot {} is reserved by owner {} (generation {}); waiting up to {} s for a stale"
                  + " reservation to expire",
              slot,
              holder.owner,
              holder.generation,
              timings.staleWait().toSeconds());
        } else if (!holder.equals(first)) {
          // It moved: its holder is alive and renewing (or someone else took it meanwhile).
          throw new SlotBusyException(
              "slot "
                  + slot
                  + " is held by a live gateway that renews its lease; refusing to start");
        }
      }
      if (clock.nanoTime() - deadline >= 0) {
        throw new SlotBusyException(
            "slot "
                + slot
                + " is still reserved after "
                + timings.staleWait().toSeconds()
                + " s; refusing to start");
      }
      sleep(timings.stalePoll());
    }
  }

  private Long tryAcquire() throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(GatewaySql.ACQUIRE_SLOT)) {
      ps.setInt(1, slot);
      ps.setObject(2, owner);
      ps.setLong(3, timings.databaseLease().toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  private Holder readHolder() throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(GatewaySql.READ_SLOT)) {
      ps.setInt(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new Holder(rs.getObject(1, UUID.class), rs.getLong(2), rs.getLong(3));
      }
    }
  }

  private record Holder(UUID owner, long generation, long renewedMicros) {}

  // ---- running

  private void startThreads() {
    heartbeat = new Thread(this::heartbeatLoop, "download-lease-slot-" + slot);
    heartbeat.setDaemon(true);
    watchdog =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "download-lease-watchdog-slot-" + slot);
              t.setDaemon(true);
              return t;
            });
    // Fine-grained so the listener fires promptly; mayServe() checks the clocks itself anyway.
    long periodMillis = Math.max(10, Math.min(100, timings.localValidity().toMillis() / 40));
    watchdog.scheduleAtFixedRate(
        () -> {
          if (state.get() == LeaseState.ACTIVE && !window.isValid()) {
            lose(
                "local validity expired: no renewal started within the last "
                    + timings.localValidity().toMillis()
                    + " ms succeeded in time");
          }
        },
        periodMillis,
        periodMillis,
        TimeUnit.MILLISECONDS);
    heartbeat.start();
  }

  private void heartbeatLoop() {
    long heartbeatNanos = timings.heartbeat().toNanos();
    long next = clock.nanoTime() + heartbeatNanos;
    try {
      while (state.get() == LeaseState.ACTIVE) {
        long wait = next - clock.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        if (state.get() != LeaseState.ACTIVE) {
          return;
        }
        LeaseWindow.Start start = window.begin();
        // After a failed attempt retry sooner: the window keeps running, and a quick second try
        // on a fresh connection rides out a short outage.
        next = start.nanos() + (renewOnce(start) ? heartbeatNanos : heartbeatNanos / 4);
      }
    } catch (InterruptedException e) {
      // close() interrupts.
    } finally {
      dropConnection();
    }
  }

  /** One renewal attempt; {@code false} only if it failed with a database error. */
  private boolean renewOnce(LeaseWindow.Start start) {
    try {
      Connection c = connection;
      if (c == null) {
        c = openWithBarrier();
        if (c == null) {
          lose("the download mode barrier could not be retaken after a reconnect");
          return true;
        }
        connection = c;
        if (state.get() != LeaseState.ACTIVE) {
          dropConnection();
          return true;
        }
      }
      boolean renewed = renew(c);
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
      notifyListener(() -> listener.onRenewed(slot, generation));
      return true;
    } catch (SQLException e) {
      if (state.get() != LeaseState.ACTIVE) {
        return true; // close() aborted the connection, or the lease is already lost.
      }
      failedRenewals.incrementAndGet();
      log.warn(
          "renewal of download slot {} failed (SQLState {}); retrying soon on a new connection",
          slot,
          e.getSQLState());
      dropConnection();
      notifyListener(() -> listener.onRenewalFailed(slot, e));
      return false;
    }
  }

  private boolean renew(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(GatewaySql.RENEW_SLOT)) {
      ps.setLong(1, timings.databaseLease().toMillis());
      ps.setInt(2, slot);
      ps.setObject(3, owner);
      ps.setLong(4, generation);
      return ps.executeUpdate() == 1;
    }
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
    if (watchdog != null) {
      watchdog.shutdown();
    }
    notifyListener(() -> listener.onLost(slot, reason));
  }

  private void dropConnection() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      closeQuietly(c);
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException | RuntimeException e) {
      log.debug("closing a lease connection failed", e);
    }
  }

  private static void notifyListener(Runnable hook) {
    try {
      hook.run();
    } catch (RuntimeException e) {
      log.warn("lease listener failed; ignored", e);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(Math.max(1, d.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SlotBusyException("interrupted while waiting to start the download lease");
    }
  }

  private static String describe(SharedDownloadPolicy p) {
    return "(rate-bytes-per-second="
        + p.rateBytesPerSecond()
        + ", per-principal-bytes-per-second="
        + p.perPrincipalBytesPerSecond()
        + ", slots="
        + p.slots()
        + ")";
  }
}
