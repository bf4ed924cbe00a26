package dev.qinglong.app.webhooks;

import dev.qinglong.app.http.RefusalWindows;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.webhooks.ManagementQuotaRejections;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookEventType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the {@code management-quota.rejected} event of a refusal, off the deciding path. The
 * deciding thread only builds the bucket's deduplication key and hands (bucket, window start,
 * limit) to one background writer through a bounded queue: the deciding statement, and the refusal
 * from a full bucket held in memory, stay exactly as they are. A flood of refusals of one bucket
 * causes at most one write per process and window (the bucket's window is remembered in memory
 * until a minute after it is over, in the same bounded {@link RefusalWindows} the refusal's audit
 * uses; one update per refusal, never a scan); replicas together write the event once (the
 * database's unique deduplication key). When the queue is full the event is dropped and counted
 * ({@code qinglong_webhook_events_dropped_total{type="management-quota.rejected"}}); a write that
 * fails is counted too and forgotten, so the next refusal of the window tries again.
 */
public final class RejectionEvents implements QuotaDecisionListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RejectionEvents.class);

  /** Refusals waiting to be written, at most. */
  static final int QUEUE_CAPACITY = 1024;

  /**
   * Buckets remembered as written in their window, at most; one evicted beyond it is written again
   * on its next refusal (the database dedupes).
   */
  static final int MAX_REMEMBERED = 10_000;

  private final WebhookEventOutbox outbox;
  private final Clock clock;
  private final ThreadPoolExecutor writer;
  private final RefusalWindows remembered;
  private final Counter dropped;
  private final Counter failed;
  private final Counter written;

  /**
   * @param window the management quota's window: a bucket's key is remembered for that long after
   *     its window started (plus a minute for clock differences)
   */
  public RejectionEvents(
      WebhookEventOutbox outbox, Duration window, Clock clock, MeterRegistry registry) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.clock = Objects.requireNonNull(clock, "clock");
    // No timer: an ended window has nothing to report here, it only waits to be evicted.
    this.remembered =
        new RefusalWindows(
            MAX_REMEMBERED, window, Duration.ofMinutes(1), clock, false, ended -> {});
    String type = WebhookEventType.MANAGEMENT_QUOTA_REJECTED.wireName();
    this.dropped =
        Counter.builder("qinglong.webhook.events.dropped")
            .description("Webhook events not written because the writer's queue was full")
            .tag("type", type)
            .register(registry);
    this.failed =
        Counter.builder("qinglong.webhook.events.write.failures")
            .description("Webhook event writes that failed (tried again by a later refusal)")
            .tag("type", type)
            .register(registry);
    this.written =
        Counter.builder("qinglong.webhook.events.written")
            .description("Webhook event deliveries written by this process")
            .tag("type", type)
            .register(registry);
    this.writer =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUE_CAPACITY),
            r -> {
              Thread t = new Thread(r, "webhook-rejection-events");
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.AbortPolicy());
  }

  @Override
  public void decided(QuotaOperation operation, Outcome outcome) {}

  @Override
  public void rejected(QuotaKey key, QuotaDecision.Rejected rejected) {
    if (!remembered.refused(key, rejected.windowStartedAtMs())) {
      return;
    }
    String dedupKey = ManagementQuotaRejections.dedupKey(key, rejected.windowStartedAtMs());
    try {
      writer.execute(() -> write(key, rejected, dedupKey));
    } catch (RejectedExecutionException e) {
      remembered.forget(key, rejected.windowStartedAtMs());
      dropped.increment();
    }
  }

  private void write(QuotaKey key, QuotaDecision.Rejected rejected, String dedupKey) {
    try {
      int n =
          outbox.enqueueOnce(
              key.projectId(),
              WebhookEventType.MANAGEMENT_QUOTA_REJECTED,
              dedupKey,
              ManagementQuotaRejections.payload(key, rejected, clock.millis()));
      written.increment(n);
    } catch (RuntimeException e) {
      remembered.forget(key, rejected.windowStartedAtMs());
      failed.increment();
      log.warn("webhook.event-write-failed type=management-quota.rejected: {}", e.getMessage());
    }
  }

  /** Refusals waiting in the queue (for tests and metrics). */
  int queued() {
    return writer.getQueue().size() + writer.getActiveCount();
  }

  @Override
  public void close() {
    writer.shutdown();
    try {
      writer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    writer.shutdownNow();
  }
}
