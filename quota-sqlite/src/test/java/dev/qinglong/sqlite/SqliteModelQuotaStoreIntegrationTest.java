package dev.qinglong.sqlite;

import dev.qinglong.testkit.ModelQuotaFixture;
import dev.qinglong.testkit.ModelQuotaStoreContract;

/** The model quota contract on SQLite; the race runs two pools of one connection each. */
class SqliteModelQuotaStoreIntegrationTest extends ModelQuotaStoreContract {
  @Override
  protected ModelQuotaFixture createFixture() {
    return new SqliteFixture(true);
  }
}
