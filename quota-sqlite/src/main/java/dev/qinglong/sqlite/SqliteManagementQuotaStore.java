package dev.qinglong.sqlite;

import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import javax.sql.DataSource;

/** {@link dev.qinglong.core.quota.ManagementQuotaStore} on SQLite, on SQLite's own clock. */
public final class SqliteManagementQuotaStore extends JdbcManagementQuotaStore {
  public SqliteManagementQuotaStore(DataSource dataSource) {
    super(dataSource, SqliteSql.QUOTA, "sqlite");
  }
}
