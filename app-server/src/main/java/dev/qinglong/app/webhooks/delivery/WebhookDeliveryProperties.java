package dev.qinglong.app.webhooks.delivery;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.webhooks.delivery.*}: how the active worker delivers webhooks.
 *
 * @param maxConcurrent Delivery attempts in flight at once on the active worker (1-64).
 * @param maxConcurrentPerProject Attempts in flight at once for one Project (1-16), so that one
 *     Project's slow endpoints never take every slot.
 * @param maxConcurrentPerEndpoint Attempts in flight at once for one endpoint (1-8).
 * @param lease How long a claimed delivery is held by its worker before another claim may take it
 *     (a worker that died); more than an attempt's 10 s bound, at most 10m.
 * @param retryInitial Upper bound of the first retry's delay; each later bound doubles (full jitter
 *     below it), up to {@code retry-max-interval}.
 * @param retryMaxInterval The largest retry delay bound.
 * @param retryBudget How long after its event a delivery is still tried before it is marked failed
 *     (24h; shorter only for tests).
 * @param enabled Whether this process delivers when it is the active worker (default true). False
 *     only where nothing may leave the process, e.g. tests that register public addresses they must
 *     never reach; deliveries then wait in the database for a worker that delivers.
 */
@ConfigurationProperties("qinglong.webhooks.delivery")
@Validated
public record WebhookDeliveryProperties(
    @Min(1) @Max(64) @DefaultValue("16") int maxConcurrent,
    @Min(1) @Max(16) @DefaultValue("4") int maxConcurrentPerProject,
    @Min(1) @Max(8) @DefaultValue("2") int maxConcurrentPerEndpoint,
    @NotNull @DefaultValue("60s") Duration lease,
    @NotNull @DefaultValue("5s") Duration retryInitial,
    @NotNull @DefaultValue("1h") Duration retryMaxInterval,
    @NotNull @DefaultValue("24h") Duration retryBudget,
    @DefaultValue("true") boolean enabled) {

  @AssertTrue(message = "qinglong.webhooks.delivery.lease must be more than 10s and at most 10m")
  public boolean isLeaseInRange() {
    return lease != null
        && lease.compareTo(WebhookSender.TOTAL_TIMEOUT) > 0
        && lease.compareTo(Duration.ofMinutes(10)) <= 0;
  }

  @AssertTrue(
      message =
          "qinglong.webhooks.delivery.retry-initial must be at least 1ms and at most"
              + " retry-max-interval, and retry-budget at most 24h")
  public boolean isRetryInRange() {
    return retryInitial != null
        && retryMaxInterval != null
        && retryBudget != null
        && retryInitial.toMillis() >= 1
        && retryMaxInterval.compareTo(retryInitial) >= 0
        && !retryBudget.isNegative()
        && retryBudget.compareTo(Duration.ofHours(24)) <= 0;
  }

  DeliveryDispatcher.Limits limits() {
    return new DeliveryDispatcher.Limits(
        maxConcurrent, maxConcurrentPerProject, maxConcurrentPerEndpoint);
  }

  RetrySchedule schedule() {
    return new RetrySchedule(retryInitial, retryMaxInterval, retryBudget);
  }
}
