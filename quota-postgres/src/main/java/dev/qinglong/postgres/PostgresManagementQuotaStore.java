package dev.qinglong.postgres;

import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import javax.sql.DataSource;

/**
 * {@link dev.qinglong.core.quota.ManagementQuotaStore} on PostgreSQL, on {@code clock_timestamp()}.
 */
public final class PostgresManagementQuotaStore extends JdbcManagementQuotaStore {
  public PostgresManagementQuotaStore(DataSource dataSource) {
    super(dataSource, PostgresSql.QUOTA, "postgres");
  }
}
