package dev.qinglong.postgres;

import dev.qinglong.jdbc.JdbcGovernanceStore;
import javax.sql.DataSource;

/**
 * {@link dev.qinglong.core.governance.GovernanceStore} on PostgreSQL; READ COMMITTED, row locks and
 * unique indexes settle races.
 */
public final class PostgresGovernanceStore extends JdbcGovernanceStore {
  public PostgresGovernanceStore(DataSource dataSource) {
    super(dataSource, PostgresSql.GOVERNANCE, "postgres");
  }
}
