package dev.qinglong.postgres.leases;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.gateway.lease.LeaseStorage;
import dev.qinglong.gateway.lease.PolicyMismatchException;
import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import dev.qinglong.jdbc.JdbcRows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared-download lease storage in PostgreSQL: one dedicated connection per session (never a
 * pool, whose saturation must not delay a renewal), the mode barrier as a session advisory lock in
 * shared mode, and the tables of {@code db/postgres-downloads}. Every expiry is computed with
 * {@code clock_timestamp()}. Statements are in {@link GatewaySql}.
 */
public final class PostgresLeaseStorage implements LeaseStorage {
  private static final Logger log = LoggerFactory.getLogger(PostgresLeaseStorage.class);

  private final DedicatedConnectionFactory connections;
  // Written by the lease's thread; read by close() from any thread.
  private volatile Connection connection;
  private volatile boolean closed;

  /**
   * @param connections dedicated connections, e.g. {@link PostgresDownloadLease#connections}
   */
  public PostgresLeaseStorage(DedicatedConnectionFactory connections) {
    this.connections = Objects.requireNonNull(connections, "connections");
  }

  @Override
  public boolean openSession() {
    if (closed) {
      throw new StoreUnavailableException("the download lease storage is closed");
    }
    endSession();
    Connection c;
    try {
      c = connections.open();
    } catch (SQLException e) {
      throw unavailable("opening a lease connection", e);
    }
    try {
      if (!AdvisoryLocks.tryLock(c, GatewaySql.TRY_SHARED_LOCK, GatewaySql.MODE_BARRIER)) {
        closeQuietly(c);
        return false;
      }
    } catch (SQLException e) {
      closeQuietly(c);
      throw unavailable("taking the shared mode barrier", e);
    } catch (RuntimeException e) {
      closeQuietly(c);
      throw e;
    }
    connection = c;
    // close() may have run meanwhile and missed this connection.
    if (closed) {
      endSession();
      throw new StoreUnavailableException("the download lease storage is closed");
    }
    return true;
  }

  @Override
  public void endSession() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      closeQuietly(c);
    }
  }

  @Override
  public boolean insertPolicyIfAbsent(SharedDownloadPolicy policy, UUID creator) {
    try {
      return JdbcRows.update(
              session(),
              GatewaySql.INSERT_POLICY,
              policy.rateBytesPerSecond(),
              policy.perPrincipalBytesPerSecond(),
              policy.slots(),
              creator)
          == 1;
    } catch (SQLException e) {
      throw unavailable("storing the shared download policy", e);
    }
  }

  @Override
  public Optional<SharedDownloadPolicy> readPolicy() {
    try (PreparedStatement ps = session().prepareStatement(GatewaySql.READ_POLICY);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      try {
        return Optional.of(new SharedDownloadPolicy(rs.getLong(1), rs.getLong(2), rs.getInt(3)));
      } catch (IllegalArgumentException e) {
        throw new PolicyMismatchException("the stored shared download policy is invalid: " + e);
      }
    } catch (SQLException e) {
      throw unavailable("reading the shared download policy", e);
    }
  }

  @Override
  public OptionalLong tryAcquire(int slot, UUID owner, Duration lease) {
    try {
      Long generation =
          JdbcRows.one(
              session(),
              GatewaySql.ACQUIRE_SLOT,
              "slot",
              rs -> rs.getLong(1),
              slot,
              owner,
              lease.toMillis());
      return generation == null ? OptionalLong.empty() : OptionalLong.of(generation);
    } catch (SQLException e) {
      throw unavailable("acquiring slot " + slot, e);
    }
  }

  @Override
  public Optional<SlotHolder> readHolder(int slot) {
    try (PreparedStatement ps = session().prepareStatement(GatewaySql.READ_SLOT)) {
      ps.setInt(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new SlotHolder(rs.getObject(1, UUID.class), rs.getLong(2), rs.getLong(3)));
      }
    } catch (SQLException e) {
      throw unavailable("reading slot " + slot, e);
    }
  }

  @Override
  public boolean renew(int slot, UUID owner, long generation, Duration lease) {
    try {
      return JdbcRows.update(
              session(), GatewaySql.RENEW_SLOT, lease.toMillis(), slot, owner, generation)
          == 1;
    } catch (SQLException e) {
      throw unavailable("renewing slot " + slot, e);
    }
  }

  @Override
  public void close() {
    closed = true;
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        // abort, not close: it does not wait for a statement stuck on a dead network.
        c.abort(Runnable::run);
      } catch (SQLException | RuntimeException e) {
        log.debug("aborting the lease connection failed", e);
      }
      closeQuietly(c);
    }
  }

  private Connection session() {
    Connection c = connection;
    if (c == null) {
      throw new StoreUnavailableException(
          closed ? "the download lease storage is closed" : "no open lease session");
    }
    return c;
  }

  private static StoreUnavailableException unavailable(String what, SQLException e) {
    return new StoreUnavailableException(what + " failed (SQLState " + e.getSQLState() + ")", e);
  }

  private static void closeQuietly(Connection c) {
    AdvisoryLocks.closeQuietly(c, "lease");
  }
}
