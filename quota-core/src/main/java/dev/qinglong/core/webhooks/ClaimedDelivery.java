package dev.qinglong.core.webhooks;

import java.net.URI;
import java.util.List;
import java.util.Objects;

/**
 * What the delivery worker needs for one attempt: the claimed row, the payload, where to send it
 * and the keys to sign it with.
 *
 * @param payloadJson the exact body to send (UTF-8), as written with the event
 * @param attempts attempts made before this one
 * @param signingKeys the endpoint's current secret first, then a previous one still valid (less
 *     than 24 h since rotation); plain key bytes, never stored in this form
 * @param claimToken fences the claim: {@link WebhookStore#recordAttempt} with a token that is no
 *     longer the row's (a later claim took it over) changes nothing
 */
public record ClaimedDelivery(
    String deliveryId,
    String projectId,
    String webhookId,
    WebhookEventType type,
    String payloadJson,
    long createdAtMs,
    int attempts,
    URI url,
    List<byte[]> signingKeys,
    long claimToken) {
  public ClaimedDelivery {
    Objects.requireNonNull(deliveryId, "deliveryId");
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(webhookId, "webhookId");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(payloadJson, "payloadJson");
    Objects.requireNonNull(url, "url");
    signingKeys = List.copyOf(signingKeys);
  }

  @Override
  public String toString() {
    // Never print the keys.
    return "ClaimedDelivery[deliveryId="
        + deliveryId
        + ", projectId="
        + projectId
        + ", webhookId="
        + webhookId
        + ", type="
        + type.wireName()
        + ", attempts="
        + attempts
        + ", claimToken="
        + claimToken
        + "]";
  }
}
