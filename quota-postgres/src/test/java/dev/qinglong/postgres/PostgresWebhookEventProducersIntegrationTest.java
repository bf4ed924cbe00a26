package dev.qinglong.postgres;

import dev.qinglong.testkit.StoreFixture;
import dev.qinglong.testkit.WebhookEventProducersContract;

class PostgresWebhookEventProducersIntegrationTest extends WebhookEventProducersContract {
  @Override
  protected StoreFixture createFixture() {
    return new PostgresFixture("webhookevents", true);
  }
}
