package dev.qinglong.core.webhooks;

import java.util.Objects;

/**
 * One event's delivery to one endpoint, as the delivery log shows it.
 *
 * @param deliveryId the event id ({@code msg_} + random), sent as the {@code webhook-id} header and
 *     the same on every attempt
 * @param attempts attempts made so far
 * @param lastStatusCode the HTTP status of the last attempt, or null (none yet, or no response)
 * @param lastError a short reason for the last failed attempt (never a reflected response body), or
 *     null
 * @param nextAttemptAtMs when the next attempt is due (pending only), else null
 * @param deliveredAtMs when an endpoint accepted it (delivered only), else null
 */
public record WebhookDelivery(
    String deliveryId,
    String projectId,
    String webhookId,
    WebhookEventType type,
    long createdAtMs,
    int attempts,
    DeliveryStatus status,
    Integer lastStatusCode,
    String lastError,
    Long nextAttemptAtMs,
    Long deliveredAtMs) {
  public WebhookDelivery {
    Objects.requireNonNull(deliveryId, "deliveryId");
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(webhookId, "webhookId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(status, "status");
  }
}
