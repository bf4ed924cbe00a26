package dev.qinglong.app.webhooks.delivery;

import dev.qinglong.core.webhooks.ClaimedDelivery;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs delivery attempts with bounded concurrency: at most {@code maxInFlight} at once overall, at
 * most {@code perProject} for one Project and at most {@code perEndpoint} for one endpoint. An
 * attempt is started at once or not at all — there is no local queue — so a slow or dead endpoint
 * holds at most its own few slots while every other Project's deliveries keep being started. A
 * delivery refused here stays claimed in the store and is due again when its lease ends (its
 * attempt count does not change).
 */
public final class DeliveryDispatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeliveryDispatcher.class);

  /** The bounds. */
  public record Limits(int maxInFlight, int perProject, int perEndpoint) {
    public Limits {
      if (maxInFlight < 1 || perProject < 1 || perEndpoint < 1) {
        throw new IllegalArgumentException("concurrency limits must be >= 1");
      }
    }

    /** 16 at once, 4 per Project, 2 per endpoint. */
    public static Limits defaults() {
      return new Limits(16, 4, 2);
    }
  }

  private final Limits limits;
  private final Consumer<ClaimedDelivery> attempt;
  private final ExecutorService threads;
  private final Map<String, Integer> byProject = new HashMap<>();
  private final Map<String, Integer> byEndpoint = new HashMap<>();
  private int inFlight;

  /**
   * @param attempt makes and records one attempt; must not throw (anything thrown is logged)
   */
  public DeliveryDispatcher(Limits limits, Consumer<ClaimedDelivery> attempt) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.attempt = Objects.requireNonNull(attempt, "attempt");
    AtomicInteger n = new AtomicInteger();
    // Never more tasks than threads: offer() admits at most maxInFlight at a time.
    this.threads =
        new ThreadPoolExecutor(
            limits.maxInFlight(),
            limits.maxInFlight(),
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "webhook-delivery-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    ((ThreadPoolExecutor) threads).allowCoreThreadTimeOut(true);
  }

  /** How many more attempts could start now (overall; a Project or endpoint may be full). */
  public synchronized int freeSlots() {
    return limits.maxInFlight() - inFlight;
  }

  /** Attempts running now. */
  public synchronized int inFlight() {
    return inFlight;
  }

  /**
   * Starts an attempt for {@code delivery} if the overall, Project and endpoint bounds allow.
   *
   * @return false if it was not started (it is left to its lease)
   */
  public boolean offer(ClaimedDelivery delivery) {
    String project = delivery.projectId();
    String endpoint = endpointKey(delivery);
    synchronized (this) {
      if (inFlight >= limits.maxInFlight()
          || byProject.getOrDefault(project, 0) >= limits.perProject()
          || byEndpoint.getOrDefault(endpoint, 0) >= limits.perEndpoint()) {
        return false;
      }
      inFlight++;
      byProject.merge(project, 1, Integer::sum);
      byEndpoint.merge(endpoint, 1, Integer::sum);
    }
    try {
      threads.execute(() -> run(delivery, project, endpoint));
      return true;
    } catch (RejectedExecutionException e) {
      release(project, endpoint);
      return false;
    }
  }

  private void run(ClaimedDelivery delivery, String project, String endpoint) {
    try {
      attempt.accept(delivery);
    } catch (RuntimeException e) {
      log.warn("webhook delivery attempt failed unexpectedly: {}", delivery, e);
    } finally {
      release(project, endpoint);
    }
  }

  private synchronized void release(String project, String endpoint) {
    inFlight--;
    byProject.computeIfPresent(project, (k, v) -> v == 1 ? null : v - 1);
    byEndpoint.computeIfPresent(endpoint, (k, v) -> v == 1 ? null : v - 1);
  }

  private static String endpointKey(ClaimedDelivery d) {
    // Project ids and webhook ids are identifiers without a newline.
    return d.projectId() + "\n" + d.webhookId();
  }

  /**
   * Stops starting attempts and waits up to {@code grace} for running ones (an attempt lasts at
   * most the sender's total timeout); any still running is interrupted and its delivery is retried
   * after its lease.
   */
  public void close(java.time.Duration grace) {
    threads.shutdown();
    try {
      if (!threads.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        threads.shutdownNow();
      }
    } catch (InterruptedException e) {
      threads.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    close(WebhookSender.TOTAL_TIMEOUT.plusSeconds(1));
  }
}
