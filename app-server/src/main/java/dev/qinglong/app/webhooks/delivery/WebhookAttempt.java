package dev.qinglong.app.webhooks.delivery;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.webhooks.AttemptResult;
import dev.qinglong.core.webhooks.ClaimedDelivery;
import dev.qinglong.core.webhooks.WebhookStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One delivery attempt of a claimed delivery: check the target (resolving it once), sign, send,
 * then record the outcome under the claim's token — delivered on a 2xx, else pending again at the
 * {@link RetrySchedule}'s next time, or failed once the 24 h budget is spent. The {@code
 * webhook-id} is the event id, the same on every attempt; the timestamp is the attempt's own.
 */
public final class WebhookAttempt implements Consumer<ClaimedDelivery> {
  private static final Logger log = LoggerFactory.getLogger(WebhookAttempt.class);

  private final WebhookStore store;
  private final TargetGuard guard;
  private final WebhookSender sender;
  private final RetrySchedule schedule;
  private final WebhookDeliveryMetrics metrics;
  private final Clock clock;

  public WebhookAttempt(
      WebhookStore store,
      TargetGuard guard,
      WebhookSender sender,
      RetrySchedule schedule,
      WebhookDeliveryMetrics metrics,
      Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.guard = Objects.requireNonNull(guard, "guard");
    this.sender = Objects.requireNonNull(sender, "sender");
    this.schedule = Objects.requireNonNull(schedule, "schedule");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public void accept(ClaimedDelivery delivery) {
    long started = System.nanoTime();
    WebhookSender.Outcome outcome = send(delivery);
    AttemptResult result =
        outcome.delivered()
            ? AttemptResult.delivered(outcome.statusCode())
            : AttemptResult.failed(
                outcome.statusCode(),
                outcome.error(),
                schedule.nextAttemptAtMs(
                    delivery.createdAtMs(), delivery.attempts() + 1, clock.millis()));
    WebhookDeliveryMetrics.Outcome counted;
    try {
      if (!store.recordAttempt(delivery.deliveryId(), delivery.claimToken(), result)) {
        counted = WebhookDeliveryMetrics.Outcome.LOST;
        log.info(
            "webhook.claim-lost delivery={} project={} webhook={}: a later claim owns it; outcome not recorded",
            delivery.deliveryId(),
            delivery.projectId(),
            delivery.webhookId());
      } else if (result.delivered()) {
        counted = WebhookDeliveryMetrics.Outcome.DELIVERED;
      } else if (result.nextAttemptAtMs() != null) {
        counted = WebhookDeliveryMetrics.Outcome.RETRYING;
      } else {
        counted = WebhookDeliveryMetrics.Outcome.FAILED;
        log.warn(
            "webhook.failed delivery={} project={} webhook={} attempts={}: given up after the retry budget; last error: {}",
            delivery.deliveryId(),
            delivery.projectId(),
            delivery.webhookId(),
            delivery.attempts() + 1,
            result.error());
      }
    } catch (StoreUnavailableException e) {
      // Sent but not recorded: the claim's lease ends and it is sent again (at least once).
      counted = WebhookDeliveryMetrics.Outcome.LOST;
      log.warn(
          "webhook.record-failed delivery={}: the outcome could not be stored; retried after the lease: {}",
          delivery.deliveryId(),
          e.getMessage());
    }
    metrics.attempted(counted, System.nanoTime() - started);
  }

  private WebhookSender.Outcome send(ClaimedDelivery delivery) {
    if (delivery.signingKeys().isEmpty()) {
      return WebhookSender.Outcome.error("no signing key");
    }
    TargetGuard.PinnedTarget target;
    try {
      target = guard.check(delivery.url());
    } catch (TargetGuard.RefusedTargetException e) {
      return WebhookSender.Outcome.error(e.getMessage());
    }
    byte[] body = delivery.payloadJson().getBytes(StandardCharsets.UTF_8);
    long timestamp = clock.millis() / 1000;
    String signature =
        WebhookSigner.signatureHeader(
            delivery.deliveryId(), timestamp, body, delivery.signingKeys());
    return sender.send(target, delivery.deliveryId(), timestamp, signature, body);
  }
}
