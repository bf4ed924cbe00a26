package dev.qinglong.postgres;

import dev.qinglong.testkit.ProjectPolicyStoreContract;
import dev.qinglong.testkit.StoreFixture;

class PostgresProjectPolicyStoreIntegrationTest extends ProjectPolicyStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new PostgresFixture("projectpolicystore");
  }
}
