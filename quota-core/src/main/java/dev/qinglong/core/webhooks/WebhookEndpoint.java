package dev.qinglong.core.webhooks;

import java.math.BigDecimal;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A stored endpoint. It never carries its signing secret: that is shown once, when created or
 * rotated, and otherwise only handed to the delivery worker.
 *
 * @param modelQuotaThresholds fractions in (0, 1] of a window's limit, ascending, without repeats
 */
public record WebhookEndpoint(
    String projectId,
    String webhookId,
    URI url,
    Set<WebhookEventType> events,
    List<BigDecimal> modelQuotaThresholds,
    long createdAtMs,
    long updatedAtMs) {
  public WebhookEndpoint {
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(webhookId, "webhookId");
    Objects.requireNonNull(url, "url");
    events = Set.copyOf(events);
    modelQuotaThresholds = List.copyOf(modelQuotaThresholds);
  }
}
