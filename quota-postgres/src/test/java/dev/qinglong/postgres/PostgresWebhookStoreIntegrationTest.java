package dev.qinglong.postgres;

import dev.qinglong.testkit.StoreFixture;
import dev.qinglong.testkit.WebhookStoreContract;

class PostgresWebhookStoreIntegrationTest extends WebhookStoreContract {
  @Override
  protected StoreFixture createFixture() {
    return new PostgresFixture("webhookstore");
  }
}
