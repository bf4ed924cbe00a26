package dev.qinglong.sqlite;

import dev.qinglong.jdbc.JdbcModelQuotaStore;
import javax.sql.DataSource;

/**
 * {@link dev.qinglong.core.ai.ModelQuotaStore} on SQLite. Every admission and completion is one
 * {@code BEGIN IMMEDIATE} transaction (the pool's {@code transaction_mode}): SQLite's single writer
 * lock serialises all of them, across connections and processes, so no further lock is needed and
 * no hook is overridden. The clock is SQLite's own, read once per transaction.
 */
public final class SqliteModelQuotaStore extends JdbcModelQuotaStore {
  public SqliteModelQuotaStore(DataSource dataSource) {
    super(dataSource, SqliteSql.MODEL_QUOTA, "sqlite");
  }
}
