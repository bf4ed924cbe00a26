package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.sql.SQLException;

/** Maps every {@link SQLException} of the JDBC stores to the one port exception. */
public final class SqlFailures {
  private SqlFailures() {}

  /** The message names the store and the operation, never the SQL or a row: it may reach logs. */
  public static StoreUnavailableException unavailable(
      String store, String operation, SQLException cause) {
    return new StoreUnavailableException(
        store
            + " store unavailable during "
            + operation
            + " (SQLState "
            + cause.getSQLState()
            + ")",
        cause);
  }

  /** True for SQLState class 23 (integrity constraint violation): an expected conflict. */
  public static boolean isConstraintViolation(SQLException e) {
    return e.getSQLState() != null && e.getSQLState().startsWith("23");
  }
}
