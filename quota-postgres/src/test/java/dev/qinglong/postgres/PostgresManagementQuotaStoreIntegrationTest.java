package dev.qinglong.postgres;

import dev.qinglong.testkit.ManagementQuotaStoreContract;
import dev.qinglong.testkit.StoreFixture;

class PostgresManagementQuotaStoreIntegrationTest extends ManagementQuotaStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new PostgresFixture("managementquotastore");
  }
}
