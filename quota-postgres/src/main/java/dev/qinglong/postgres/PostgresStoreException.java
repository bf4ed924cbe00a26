package dev.qinglong.postgres;

import dev.qinglong.core.model.StoreUnavailableException;
import java.sql.SQLException;

/** Maps every {@link SQLException} of this adapter to the one port exception. */
final class PostgresStoreException {
  private PostgresStoreException() {}

  static final String UNIQUE_VIOLATION = "23505";

  // The message names the operation, never the SQL or a row: it may reach logs.
  static StoreUnavailableException unavailable(String operation, SQLException cause) {
    return new StoreUnavailableException(
        "postgres store unavailable during "
            + operation
            + " (SQLState "
            + cause.getSQLState()
            + ")",
        cause);
  }
}
