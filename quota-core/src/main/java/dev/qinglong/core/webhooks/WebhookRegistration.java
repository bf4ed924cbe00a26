package dev.qinglong.core.webhooks;

import java.util.Objects;

/**
 * The answer to a put or a rotation: the endpoint, whether it was created, and its new signing
 * secret in text form ({@code whsec_…}), which is shown this once and never again; null when an
 * existing endpoint was replaced (its secret did not change).
 */
public record WebhookRegistration(WebhookEndpoint endpoint, boolean created, String secret) {
  public WebhookRegistration {
    Objects.requireNonNull(endpoint, "endpoint");
  }

  @Override
  public String toString() {
    return "WebhookRegistration[endpoint=" + endpoint + ", created=" + created + "]";
  }
}
