package dev.qinglong.sqlite;

import dev.qinglong.testkit.GovernanceStoreContract;
import dev.qinglong.testkit.StoreFixture;

class SqliteGovernanceStoreIntegrationTest extends GovernanceStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new SqliteFixture();
  }
}
