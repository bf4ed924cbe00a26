package dev.qinglong.sqlite;

import dev.qinglong.testkit.ManagementQuotaStoreContract;
import dev.qinglong.testkit.StoreFixture;

class SqliteManagementQuotaStoreIntegrationTest extends ManagementQuotaStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new SqliteFixture();
  }
}
