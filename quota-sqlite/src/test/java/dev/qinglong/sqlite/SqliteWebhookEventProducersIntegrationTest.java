package dev.qinglong.sqlite;

import dev.qinglong.testkit.StoreFixture;
import dev.qinglong.testkit.WebhookEventProducersContract;

class SqliteWebhookEventProducersIntegrationTest extends WebhookEventProducersContract {
  @Override
  protected StoreFixture createFixture() {
    return new SqliteFixture(true);
  }
}
