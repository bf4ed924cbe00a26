package dev.qinglong.postgres;

import dev.qinglong.testkit.GovernanceStoreContract;
import dev.qinglong.testkit.StoreFixture;

class PostgresGovernanceStoreIntegrationTest extends GovernanceStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new PostgresFixture("governancestore");
  }
}
