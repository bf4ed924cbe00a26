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

  /**
   * Runs one statement as the schema owner, with the application schema on the search path, and
   * returns the update count. Table names are those of the AI migrations.
   *
   * @throws IllegalStateException wrapping the {@link java.sql.SQLException} if the database
   *     refuses the statement
   */
  int ownerUpdate(String sql, Object... parameters);
}
