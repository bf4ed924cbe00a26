package dev.qinglong.postgres.leases;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.gateway.worker.WorkerLock;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * The publication-worker lock in PostgreSQL: a session advisory lock ({@code pg_try_advisory_lock})
 * on a dedicated connection, one per database. It is released when this process closes the
 * connection or when its session dies, and the next standby worker then gets it.
 *
 * <p>Thread-safe (used by one {@code WorkerLease} thread plus {@link #close()}).
 */
public final class PostgresWorkerLock implements WorkerLock {
  private final DedicatedConnectionFactory connections;
  private Connection connection; // guarded by this

  /**
   * @param connections dedicated connections (never a pool: the lock lives in the session)
   */
  public PostgresWorkerLock(DedicatedConnectionFactory connections) {
    this.connections = Objects.requireNonNull(connections, "connections");
  }

  @Override
  public synchronized boolean tryAcquire() {
    if (connection != null && AdvisoryLocks.holds(connection, GatewaySql.WORKER_LOCK)) {
      return true;
    }
    closeConnection();
    Connection c = null;
    try {
      c = connections.open();
      if (AdvisoryLocks.tryLock(c, GatewaySql.TRY_EXCLUSIVE_LOCK, GatewaySql.WORKER_LOCK)) {
        connection = c;
        return true;
      }
      closeQuietly(c);
      return false;
    } catch (SQLException e) {
      closeQuietly(c);
      throw new StoreUnavailableException(
          "publication-worker lock could not be checked (SQLState " + e.getSQLState() + ")", e);
    }
  }

  @Override
  public synchronized boolean isHeld() {
    return AdvisoryLocks.holds(connection, GatewaySql.WORKER_LOCK);
  }

  @Override
  public synchronized void close() {
    closeConnection();
  }

  // Caller holds the lock.
  private void closeConnection() {
    closeQuietly(connection);
    connection = null;
  }

  private static void closeQuietly(Connection c) {
    AdvisoryLocks.closeQuietly(c, "worker-lock");
  }
}
