package dev.qinglong.sqlite;

import dev.qinglong.testkit.ProjectPolicyStoreContract;
import dev.qinglong.testkit.StoreFixture;

class SqliteProjectPolicyStoreIntegrationTest extends ProjectPolicyStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new SqliteFixture();
  }
}
