package dev.qinglong.testkit;

import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.webhooks.WebhookEventOutbox;

/**
 * What an adapter supplies to run {@link WebhookEventProducersContract}: a database with the base
 * and the AI migrations, and the two event outboxes as the application connects them.
 */
public interface WebhookEventsFixture extends WebhookFixture, ModelQuotaFixture {

  /**
   * A new outbox instance, with a pool of its own, as the management side writes refusals
   * (PostgreSQL: {@code ql3_admin}).
   */
  WebhookEventOutbox rejectionOutbox();

  /**
   * A new outbox instance, with a pool of its own, as the worker's threshold pass writes
   * (PostgreSQL: {@code ql3_package_executor}).
   */
  WebhookEventOutbox workerOutbox();

  /** The worker's read of model-quota windows (PostgreSQL: {@code ql3_package_executor}). */
  ModelQuotaStore workerUsage();
}
