package dev.qinglong.postgres;

import dev.qinglong.testkit.ModelQuotaFixture;
import dev.qinglong.testkit.ModelQuotaStoreContract;

/** The model quota contract on PostgreSQL, as ql3_runtime; the race runs two separate pools. */
class PostgresModelQuotaStoreIntegrationTest extends ModelQuotaStoreContract {
  @Override
  protected ModelQuotaFixture createFixture() {
    return new PostgresFixture("modelquotastore", true);
  }
}
