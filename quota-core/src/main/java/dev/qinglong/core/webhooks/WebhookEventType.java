package dev.qinglong.core.webhooks;

import dev.qinglong.core.kernel.WireNamed;
import java.util.Optional;

/** The kinds of event a webhook endpoint subscribes to. The wire names are part of the contract. */
public enum WebhookEventType implements WireNamed {
  /** A proposal waits for decisions. */
  APPROVAL_PENDING("approval.pending"),
  /** An approval ended, approved or rejected. */
  APPROVAL_DECIDED("approval.decided"),
  /** The publication worker published an approved proposal. */
  PROPOSAL_PUBLISHED("proposal.published"),
  /** A Project window's usage crossed a configured fraction of its limit. */
  MODEL_QUOTA_THRESHOLD("model-quota.threshold"),
  /** The durable management quota refused a request (at most once per bucket and window). */
  MANAGEMENT_QUOTA_REJECTED("management-quota.rejected"),
  /** Sent on request, to check an endpoint. */
  WEBHOOK_TEST("webhook.test");

  private final String wireName;

  WebhookEventType(String wireName) {
    this.wireName = wireName;
  }

  @Override
  public String wireName() {
    return wireName;
  }

  /** The type with that wire name, or empty. */
  public static Optional<WebhookEventType> lookup(String wireName) {
    return WireNamed.lookup(WebhookEventType.class, wireName);
  }

  /**
   * The type a database column holds.
   *
   * @throws dev.qinglong.core.kernel.StoreUnavailableException for any other value (fail closed)
   */
  public static WebhookEventType fromWire(String wireName) {
    return WireNamed.stored(WebhookEventType.class, wireName);
  }
}
