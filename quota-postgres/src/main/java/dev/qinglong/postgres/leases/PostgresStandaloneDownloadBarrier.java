package dev.qinglong.postgres.leases;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.gateway.lease.ModeConflictException;
import dev.qinglong.gateway.lease.StandaloneBarrierHeldException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone side of the download mode barrier
 * (docs/design.md#standalone-and-shared-downloads): a standalone process that serves downloads from
 * a PostgreSQL-backed deployment holds the barrier <em>exclusively</em> on a dedicated connection,
 * while shared gateways hold it in shared mode ({@link PostgresDownloadLease}). So standalone and
 * shared never serve at the same time, and at most one standalone process serves per database: its
 * local governor is the whole budget.
 *
 * <p>A stored shared policy means the deployment was set up for shared gateways; a standalone
 * process would silently take the whole budget, so it refuses to start unless explicitly told to
 * ignore the policy.
 *
 * <p>Session advisory locks end with the database session, not when the network goes away; the
 * barrier is a start-up guard, not a bound on how long payload flows.
 */
public final class PostgresStandaloneDownloadBarrier implements AutoCloseable {
  private static final Logger log =
      LoggerFactory.getLogger(PostgresStandaloneDownloadBarrier.class);

  private final Connection connection;

  private PostgresStandaloneDownloadBarrier(Connection connection) {
    this.connection = connection;
  }

  /**
   * Takes the barrier exclusively and checks for a stored shared policy.
   *
   * @param connections dedicated connections (the {@code ql3_reader} login)
   * @param ignoreStoredSharedPolicy {@code true} only as a deliberate operator override
   * @return the held barrier; close it on shutdown
   * @throws ModeConflictException if shared gateways hold the barrier, or a shared policy is stored
   *     and no override was given
   * @throws StandaloneBarrierHeldException if another standalone process holds the barrier
   * @throws StoreUnavailableException if the database fails
   */
  public static PostgresStandaloneDownloadBarrier acquire(
      DedicatedConnectionFactory connections, boolean ignoreStoredSharedPolicy) {
    Objects.requireNonNull(connections, "connections");
    Connection c = null;
    try {
      c = connections.open();
      if (!AdvisoryLocks.tryLock(c, GatewaySql.TRY_EXCLUSIVE_LOCK, GatewaySql.MODE_BARRIER)) {
        throw heldBy(c);
      }
      try (PreparedStatement ps = c.prepareStatement(GatewaySql.READ_POLICY);
          ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          String stored =
              "(rate-bytes-per-second="
                  + rs.getLong(1)
                  + ", per-principal-bytes-per-second="
                  + rs.getLong(2)
                  + ", slots="
                  + rs.getInt(3)
                  + ")";
          if (!ignoreStoredSharedPolicy) {
            throw new ModeConflictException(
                "a shared download policy "
                    + stored
                    + " is stored: this database is set up for shared gateways, and a standalone"
                    + " process would take the whole budget. Use qinglong.downloads.mode=shared,"
                    + " or remove the policy offline, or override deliberately");
          }
          log.warn(
              "standalone downloads start although a shared download policy {} is stored"
                  + " (explicit override)",
              stored);
        }
      }
      return new PostgresStandaloneDownloadBarrier(c);
    } catch (SQLException e) {
      closeQuietly(c);
      throw new StoreUnavailableException(
          "standalone download barrier could not be taken (SQLState " + e.getSQLState() + ")", e);
    } catch (RuntimeException e) {
      closeQuietly(c);
      throw e;
    }
  }

  /**
   * Tells who holds the barrier: a shared lock can still be taken only when no process holds it
   * exclusively, i.e. when the holders are shared gateways.
   */
  private static RuntimeException heldBy(Connection c) throws SQLException {
    if (!AdvisoryLocks.tryLock(c, GatewaySql.TRY_SHARED_LOCK, GatewaySql.MODE_BARRIER)) {
      return new StandaloneBarrierHeldException(
          "another standalone download server holds the download mode barrier of this database");
    }
    // Shared gateways hold it. The connection is closed by the caller, which ends the lock too.
    return new ModeConflictException(
        "the download mode barrier is held by shared gateways: standalone and shared downloads"
            + " never mix");
  }

  /**
   * Whether the barrier's session is still alive and holds it (for readiness).
   *
   * @return {@code false} also when the database cannot be reached
   */
  public boolean isHeld() {
    return AdvisoryLocks.holds(connection, GatewaySql.MODE_BARRIER);
  }

  /** Releases the barrier by closing its session. Idempotent. */
  @Override
  public void close() {
    closeQuietly(connection);
  }

  private static void closeQuietly(Connection c) {
    AdvisoryLocks.closeQuietly(c, "barrier");
  }
}
