package dev.qinglong.sqlite;

import dev.qinglong.testkit.StoreFixture;
import dev.qinglong.testkit.WebhookStoreContract;

class SqliteWebhookStoreIntegrationTest extends WebhookStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new SqliteFixture();
  }
}
