package dev.qinglong.core.webhooks;

import java.util.List;

/** One page of an endpoint's delivery log, newest first; {@code nextCursor} is null on the last. */
public record DeliveryPage(List<WebhookDelivery> items, String nextCursor) {
  public DeliveryPage {
    items = List.copyOf(items);
  }
}
