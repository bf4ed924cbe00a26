package dev.qinglong.core.webhooks;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;

/**
 * The outbox of events that report no change of their own, so have no change transaction to share:
 * a refusal of the management quota ({@code management-quota.rejected}) and a model-quota window
 * reaching a fraction of its limit ({@code model-quota.threshold}). Each is identified by a
 * deduplication key (the bucket and window, or the window, dimension and fraction); writing the
 * same key again for the same endpoint writes nothing, whichever process or replica tries, so an
 * event is written at most once however many processes derive it. Every method throws {@link
 * StoreUnavailableException} when the store cannot give a definite answer.
 */
public interface WebhookEventOutbox {

  /**
   * Enqueues {@code payload} as an event of {@code type} for every endpoint of the Project
   * subscribed to it that has no delivery with {@code dedupKey} yet; one statement.
   *
   * @return how many deliveries were written (0: no subscriber, or every one already has it)
   */
  int enqueueOnce(String projectId, WebhookEventType type, String dedupKey, String payload);

  /**
   * Enqueues {@code payload} for the one endpoint, if it is still subscribed to {@code type} and
   * has no delivery with {@code dedupKey} yet.
   *
   * @return whether a delivery was written
   */
  boolean enqueueOnce(
      String projectId, String webhookId, WebhookEventType type, String dedupKey, String payload);

  /** Every endpoint subscribed to {@code model-quota.threshold} that configured thresholds. */
  List<ThresholdSubscription> thresholdSubscriptions();

  /** One endpoint subscribed to {@code model-quota.threshold}, with its fractions (0, 1]. */
  record ThresholdSubscription(String projectId, String webhookId, List<BigDecimal> thresholds) {
    public ThresholdSubscription {
      Objects.requireNonNull(projectId, "projectId");
      Objects.requireNonNull(webhookId, "webhookId");
      thresholds = List.copyOf(thresholds);
    }
  }
}
