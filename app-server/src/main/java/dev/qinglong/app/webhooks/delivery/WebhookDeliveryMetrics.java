package dev.qinglong.app.webhooks.delivery;

import dev.qinglong.app.platform.EnumCounters;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The delivery worker's meters: {@code qinglong_webhook_deliveries_total{outcome}} per attempt
 * ({@code delivered}, {@code retrying} — failed, tried again later —, {@code failed} — failed and
 * given up —, {@code lost} — the claim was taken over, nothing recorded), {@code
 * qinglong_webhook_delivery_seconds} (one attempt: target check, connect, request, status) and
 * {@code qinglong_webhook_queue_age_seconds} (age of the oldest due delivery, 0 when none is due or
 * this process is not the active worker). No Project or endpoint is ever a tag.
 */
public final class WebhookDeliveryMetrics {
  public static final String DELIVERIES = "qinglong.webhook.deliveries";
  public static final String DELIVERY = "qinglong.webhook.delivery";
  public static final String QUEUE_AGE = "qinglong.webhook.queue.age";

  /** What an attempt came to. */
  public enum Outcome {
    DELIVERED,
    RETRYING,
    FAILED,
    LOST
  }

  private static final Duration[] SLOS = {
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(2),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  private final EnumCounters<Outcome> deliveries;
  private final Timer latency;
  private final AtomicLong queueAgeMs = new AtomicLong();

  public WebhookDeliveryMetrics(MeterRegistry registry) {
    deliveries =
        new EnumCounters<>(
            registry, DELIVERIES, "Webhook delivery attempts by outcome", "outcome", Outcome.class);
    latency =
        Timer.builder(DELIVERY)
            .description("Time of one webhook delivery attempt")
            .serviceLevelObjectives(SLOS)
            .register(registry);
    Gauge.builder(QUEUE_AGE, queueAgeMs, a -> a.get() / 1000.0)
        .description(
            "Age of the oldest due webhook delivery (0 when none or not the active worker)")
        .baseUnit("seconds")
        .register(registry);
  }

  void attempted(Outcome outcome, long elapsedNanos) {
    deliveries.increment(outcome);
    latency.record(elapsedNanos, TimeUnit.NANOSECONDS);
  }

  void queueAge(long ageMs) {
    queueAgeMs.set(Math.max(0, ageMs));
  }
}
