package dev.qinglong.app.webhooks;

import dev.qinglong.core.webhooks.ModelQuotaThresholds;
import dev.qinglong.gateway.worker.WorkerLock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@code model-quota.threshold} pass ({@link ModelQuotaThresholds}) periodically while
 * this process is the active worker (it holds the worker lock): the event is derived from the
 * durable windows, so admissions and completions do nothing more than before. A pass that fails is
 * counted ({@code qinglong_webhook_threshold_pass_failures_total}) and the next one tries again; a
 * pass after a failover writes nothing twice (the deduplication key).
 */
public final class ModelQuotaThresholdPass implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ModelQuotaThresholdPass.class);

  /** How often the active worker looks for windows that reached a threshold. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(15);

  private final ModelQuotaThresholds thresholds;
  private final WorkerLock lock;
  private final Duration interval;
  private final Counter written;
  private final Counter failures;
  private ScheduledExecutorService scheduler;

  public ModelQuotaThresholdPass(
      ModelQuotaThresholds thresholds, WorkerLock lock, Duration interval, MeterRegistry registry) {
    this.thresholds = Objects.requireNonNull(thresholds, "thresholds");
    this.lock = Objects.requireNonNull(lock, "lock");
    this.interval = Objects.requireNonNull(interval, "interval");
    this.written =
        Counter.builder("qinglong.webhook.events.written")
            .description("Webhook event deliveries written by this process")
            .tag("type", "model-quota.threshold")
            .register(registry);
    this.failures =
        Counter.builder("qinglong.webhook.threshold.pass.failures")
            .description("Model-quota threshold passes that failed (tried again on the next one)")
            .register(registry);
  }

  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "webhook-threshold-pass");
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(
        this::runIfActive, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * One pass if this process holds the worker lock.
   *
   * @return deliveries written (0 when standby)
   */
  public int runIfActive() {
    try {
      if (!lock.isHeld()) {
        return 0;
      }
      int n = thresholds.run();
      written.increment(n);
      return n;
    } catch (RuntimeException e) {
      failures.increment();
      log.warn("webhook.threshold-pass-failed; retrying on the next pass: {}", e.getMessage());
      return 0;
    }
  }

  @Override
  public synchronized void close() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }
}
