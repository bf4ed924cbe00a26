package dev.qinglong.sqlite;

import dev.qinglong.testkit.ManagementQuotaLimitsContract;
import dev.qinglong.testkit.StoreFixture;

class SqliteManagementQuotaLimitsIntegrationTest extends ManagementQuotaLimitsContract {
  @Override
  protected StoreFixture createFixture() {
    return new SqliteFixture();
  }
}
