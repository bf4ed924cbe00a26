package dev.qinglong.testkit;

import dev.qinglong.core.webhooks.SecretSealer;
import dev.qinglong.core.webhooks.WebhookStore;

/**
 * What an adapter supplies to run {@link WebhookStoreContract}: the webhook store as the
 * application splits it, and an owner-level read of what the database holds for a secret.
 */
public interface WebhookFixture extends StoreFixture {

  /** The registration side (PostgreSQL: {@code ql3_admin}, as the management API connects). */
  WebhookStore webhookStore(SecretSealer sealer);

  /** The delivery worker's side (PostgreSQL: {@code ql3_package_executor}). */
  WebhookStore deliveryStore(SecretSealer sealer);

  /** The stored (sealed) current secret of an endpoint, read as the owner; null if none. */
  byte[] storedSecret(String projectId, String webhookId);
}
