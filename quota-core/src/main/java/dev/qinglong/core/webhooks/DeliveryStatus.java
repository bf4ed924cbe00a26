package dev.qinglong.core.webhooks;

import dev.qinglong.core.kernel.WireNamed;

/**
 * Where a delivery stands: {@code pending} (waiting for its next attempt, or being attempted),
 * {@code delivered} (an endpoint answered 2xx) or {@code failed} (retries ran out). Wire names are
 * the lower-case constant names.
 */
public enum DeliveryStatus implements WireNamed {
  PENDING,
  DELIVERED,
  FAILED;

  /**
   * The status a database column holds.
   *
   * @throws dev.qinglong.core.kernel.StoreUnavailableException for any other value (fail closed)
   */
  public static DeliveryStatus fromWire(String wireName) {
    return WireNamed.stored(DeliveryStatus.class, wireName);
  }
}
