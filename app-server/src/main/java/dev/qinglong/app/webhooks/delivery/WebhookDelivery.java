package dev.qinglong.app.webhooks.delivery;

import java.util.Optional;

/**
 * This process's webhook delivery (roles {@code all} and {@code worker}): the loop when the backend
 * gave the worker a webhook store, nothing otherwise (PostgreSQL without a secret key: the worker
 * cannot unseal secrets, so it delivers nothing).
 */
public final class WebhookDelivery implements AutoCloseable {
  private final Optional<WebhookDeliveryLoop> loop;
  private final Optional<WebhookSender> sender;

  WebhookDelivery(WebhookDeliveryLoop loop, WebhookSender sender) {
    this.loop = Optional.ofNullable(loop);
    this.sender = Optional.ofNullable(sender);
  }

  /** Whether this process delivers webhooks when it is the active worker. */
  public boolean enabled() {
    return loop.isPresent();
  }

  @Override
  public void close() {
    loop.ifPresent(WebhookDeliveryLoop::close);
    sender.ifPresent(WebhookSender::close);
  }
}
