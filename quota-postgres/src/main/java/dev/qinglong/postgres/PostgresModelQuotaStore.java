package dev.qinglong.postgres;

import dev.qinglong.core.ai.AdvisoryLockKeys;
import dev.qinglong.core.ai.WindowRef;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * {@link dev.qinglong.core.ai.ModelQuotaStore} on PostgreSQL, connected as {@code ql3_runtime}
 * (SELECT, INSERT on the receipts; UPDATE only on StepRuns).
 *
 * <p>Admission and completion are each one READ COMMITTED transaction that takes {@code
 * pg_advisory_xact_lock} on {@link AdvisoryLockKeys#window} of the window concerned before reading
 * anything the decision depends on. Every statement after the lock sees everything the previous
 * holder committed (READ COMMITTED takes a fresh snapshot per statement; REPEATABLE READ would pin
 * a snapshot older than the lock). Completion then takes {@link AdvisoryLockKeys#ledger} for the
 * Project's ledger sequence. The clock is {@code clock_timestamp()}, read once per transaction.
 *
 * <p>Writes that race outside a shared lock (a StepRun admitted in two windows at a boundary, two
 * policy writers) meet a unique constraint; the transaction is then retried and sees the winner.
 */
public final class PostgresModelQuotaStore extends JdbcModelQuotaStore {
  public PostgresModelQuotaStore(DataSource dataSource) {
    super(dataSource, PostgresSql.MODEL_QUOTA, "postgres");
  }

  /** Always returns true: the lock may have waited for a transaction that committed since. */
  @Override
  protected boolean lockWindow(Connection connection, WindowRef window) throws SQLException {
    lock(connection, AdvisoryLockKeys.window(window));
    return true;
  }

  @Override
  protected void lockLedger(Connection connection, String projectId) throws SQLException {
    lock(connection, AdvisoryLockKeys.ledger(projectId));
  }

  /**
   * REPEATABLE READ: the window usage is read from two window heads without a lock, and one
   * snapshot keeps them consistent with each other. (Admission and completion stay READ COMMITTED:
   * see above.)
   */
  @Override
  protected int snapshotIsolation() {
    return Connection.TRANSACTION_REPEATABLE_READ;
  }

  private static void lock(Connection c, long key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.ADVISORY_XACT_LOCK)) {
      ps.setLong(1, key);
      ps.executeQuery().close();
    }
  }
}
