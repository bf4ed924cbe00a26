package dev.qinglong.postgres;

import dev.qinglong.testkit.ManagementQuotaLimitsContract;
import dev.qinglong.testkit.StoreFixture;

class PostgresManagementQuotaLimitsIntegrationTest extends ManagementQuotaLimitsContract {
  @Override
  protected StoreFixture createFixture() {
    return new PostgresFixture("managementquotalimits");
  }
}
