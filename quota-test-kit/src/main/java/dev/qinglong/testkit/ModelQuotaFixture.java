package dev.qinglong.testkit;

import dev.qinglong.core.modelquota.ModelQuotaStore;
import javax.sql.DataSource;

/**
 * What an adapter supplies to run {@link ModelQuotaStoreContract}: a database with the base and the
 * AI migrations applied, pools as the AI runtime connects, and owner-level writes that the port
 * deliberately does not offer (tampering, moving stored windows into the past).
 */
public interface ModelQuotaFixture extends StoreFixture {

  /**
   * A new, independent pool connected as the AI runtime connects in production (PostgreSQL: role
   * {@code ql3_runtime}; SQLite: one writer connection).
   */
  DataSource newRuntimeDataSource();

  ModelQuotaStore modelQuotaStore(DataSource dataSource);
}
