package dev.qinglong.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Connections and transactions for every JDBC store: one connection per call, commit or rollback,
 * and every {@link SQLException} mapped to the port exception by {@link SqlFailures}, named after
 * the dialect and the operation.
 */
public final class JdbcTransactions {
  /** SQLState of a unique violation: a concurrent writer won. */
  private static final String UNIQUE_VIOLATION = "23505";

  /** A transaction that met a unique constraint is tried this often in all. */
  private static final int ATTEMPTS = 3;

  @FunctionalInterface
  public interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private final DataSource dataSource;
  private final JdbcDialect dialect;

  public JdbcTransactions(DataSource dataSource, JdbcDialect dialect) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
  }

  /** The database clock ({@link JdbcDialect#nowMs}), read on {@code c}. */
  public long nowMs(Connection c) throws SQLException {
    return JdbcRows.nowMs(c, dialect);
  }

  @FunctionalInterface
  public interface StatementWork<T> {
    T run(PreparedStatement statement) throws SQLException;
  }

  /** Prepares {@code sql} on one connection in auto-commit and runs {@code work} on it. */
  public <T> T statement(String operation, String sql, StatementWork<T> work) {
    return autoCommit(
        operation,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            return work.run(ps);
          }
        });
  }

  /**
   * Runs {@code sql} for {@code parameters} ({@link JdbcRows#bind}) on one connection in
   * auto-commit; {@code read} answers from its result set, before the first row.
   */
  public <T> T query(
      String operation, String sql, JdbcRows.RowMapper<T> read, Object... parameters) {
    return statement(
        operation,
        sql,
        ps -> {
          JdbcRows.bind(ps, parameters);
          try (ResultSet rs = ps.executeQuery()) {
            return read.map(rs);
          }
        });
  }

  /** Every row of {@code sql} for {@code parameters} ({@link JdbcRows#bind}), in auto-commit. */
  public <T> List<T> list(
      String operation,
      String sql,
      String what,
      JdbcRows.RowMapper<T> mapper,
      Object... parameters) {
    return autoCommit(operation, c -> JdbcRows.all(c, sql, what, mapper, parameters));
  }

  /** Runs the update {@code sql} for {@code parameters} in auto-commit; the row count. */
  public int update(String operation, String sql, Object... parameters) {
    return autoCommit(operation, c -> JdbcRows.update(c, sql, parameters));
  }

  /** Runs {@code work} on one connection in auto-commit: each statement commits on its own. */
  public <T> T autoCommit(String operation, Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return work.run(c);
    } catch (SQLException e) {
      throw SqlFailures.unavailable(dialect.name(), operation, e);
    }
  }

  /**
   * Runs {@code work} in one transaction at the connection's isolation level: committed if it
   * returns, rolled back if it throws.
   */
  public <T> T inTransaction(String operation, Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return commitOrRollback(c, work);
    } catch (SQLException e) {
      throw SqlFailures.unavailable(dialect.name(), operation, e);
    }
  }

  /**
   * As {@link #inTransaction(String, Work)}, but when a constraint is violated (SQLState class 23,
   * an expected conflict) the transaction is rolled back and {@code afterConflict} answers on the
   * same connection in auto-commit.
   */
  public <T> T inTransaction(String operation, Work<T> work, Work<T> afterConflict) {
    try (Connection c = dataSource.getConnection()) {
      try {
        return commitOrRollback(c, work);
      } catch (SQLException e) {
        if (!SqlFailures.isConstraintViolation(e)) {
          throw e;
        }
        return afterConflict.run(c);
      }
    } catch (SQLException e) {
      throw SqlFailures.unavailable(dialect.name(), operation, e);
    }
  }

  /**
   * Runs {@code work} in one transaction at the connection's isolation level, tried up to {@value
   * #ATTEMPTS} times in all while a unique constraint (SQLState {@value #UNIQUE_VIOLATION}) shows
   * that a concurrent writer won (the next attempt sees the winner); a driver that reports no
   * SQLState is never retried. Each attempt has its own connection.
   */
  public <T> T retryingTransaction(String operation, Work<T> work) {
    SQLException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try (Connection c = dataSource.getConnection()) {
        return commitOrRollback(c, work);
      } catch (SQLException e) {
        if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
          throw SqlFailures.unavailable(dialect.name(), operation, e);
        }
        last = e;
      }
    }
    throw SqlFailures.unavailable(dialect.name(), operation + " (still contended)", last);
  }

  /**
   * Runs {@code work} in one transaction on {@code c} at its isolation level: committed if it
   * returns, rolled back if it throws. The connection is left in auto-commit.
   */
  public static <T> T commitOrRollback(Connection c, Work<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run(c);
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }
}
