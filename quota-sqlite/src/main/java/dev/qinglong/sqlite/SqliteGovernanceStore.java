package dev.qinglong.sqlite;

import dev.qinglong.jdbc.JdbcGovernanceStore;
import javax.sql.DataSource;

/**
 * {@link dev.qinglong.core.governance.GovernanceStore} on SQLite; writes run in {@code BEGIN
 * IMMEDIATE} transactions.
 */
public final class SqliteGovernanceStore extends JdbcGovernanceStore {
  public SqliteGovernanceStore(DataSource dataSource) {
    super(dataSource, SqliteSql.GOVERNANCE, "sqlite");
  }
}
