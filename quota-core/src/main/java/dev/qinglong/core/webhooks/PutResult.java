package dev.qinglong.core.webhooks;

import java.util.Objects;

/**
 * An endpoint as stored after a put, and whether this put created it (then the secret passed in
 * became its signing secret; otherwise the existing secret was kept).
 */
public record PutResult(WebhookEndpoint endpoint, boolean created) {
  public PutResult {
    Objects.requireNonNull(endpoint, "endpoint");
  }
}
