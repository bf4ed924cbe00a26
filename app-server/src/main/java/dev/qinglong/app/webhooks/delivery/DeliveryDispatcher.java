package dev.qinglong.app.webhooks.delivery;

import dev.qinglong.core.webhooks.ClaimedDelivery;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs delivery attempts with bounded concurrency: at most {@code maxInFlight} at once overall, at
 * most {@code perProject} for one Project and at most {@code perEndpoint} for one endpoint, so a
 * slow or dead endpoint holds only its own few slots while every other Project's deliveries keep
 * being started.
 *
 * <p>A delivery that cannot start at once because its endpoint or Project is busy waits in a short
 * queue of its endpoint (at most {@value #QUEUE_PER_ENDPOINT} per endpoint, {@value
 * #QUEUE_PER_PROJECT} per Project) and starts when a slot of its own frees: a burst of events to
 * one endpoint goes out in order, one after the other. Waiting rows do not take slots from anyone.
 * A row waits at most {@code maxWait} (less than its claim's lease, so the claim is still its own
 * when it starts); one that waited longer, or found the queue full, is dropped and is due again in
 * the store when its lease ends (its attempt count does not change).
 */
public final class DeliveryDispatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DeliveryDispatcher.class);

  /** Deliveries waiting for a busy endpoint, at most. */
  static final int QUEUE_PER_ENDPOINT = 4;

  /** Deliveries waiting for busy endpoints of one Project, at most. */
  static final int QUEUE_PER_PROJECT = 8;

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

  private record Waiting(ClaimedDelivery delivery, long sinceNanos) {}

  private final Limits limits;
  private final Consumer<ClaimedDelivery> attempt;
  private final long maxWaitNanos;
  private final LongSupplier nanoTime;
  private final ExecutorService threads;
  private final Map<String, Integer> byProject = new HashMap<>();
  private final Map<String, Integer> byEndpoint = new HashMap<>();
  private final Map<String, Integer> waitingByProject = new HashMap<>();
  // Endpoint → its waiting deliveries; iterated in turn (an endpoint served moves to the end).
  private final Map<String, ArrayDeque<Waiting>> waiting = new LinkedHashMap<>();
  private int inFlight;
  private int waitingCount;
  private volatile Runnable onSlotFreed = () -> {};

  /**
   * @param maxWait how long a delivery may wait for its endpoint's slot: less than the claim's
   *     lease minus one attempt's duration
   * @param attempt makes and records one attempt; must not throw (anything thrown is logged)
   */
  public DeliveryDispatcher(Limits limits, Duration maxWait, Consumer<ClaimedDelivery> attempt) {
    this(limits, maxWait, attempt, System::nanoTime);
  }

  DeliveryDispatcher(
      Limits limits, Duration maxWait, Consumer<ClaimedDelivery> attempt, LongSupplier nanoTime) {
    this.limits = Objects.requireNonNull(limits, "limits");
    this.attempt = Objects.requireNonNull(attempt, "attempt");
    this.maxWaitNanos = maxWait.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    AtomicInteger n = new AtomicInteger();
    // Never more tasks than threads: an attempt is submitted only when a slot is reserved for it.
    ThreadPoolExecutor pool =
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
    pool.allowCoreThreadTimeOut(true);
    this.threads = pool;
  }

  /** How many more attempts could start now (overall; a Project or endpoint may be full). */
  public synchronized int freeSlots() {
    return limits.maxInFlight() - inFlight;
  }

  /** Attempts running now. */
  public synchronized int inFlight() {
    return inFlight;
  }

  /** Deliveries waiting for their endpoint or Project. */
  public synchronized int waiting() {
    return waitingCount;
  }

  /**
   * Starts an attempt for {@code delivery} if the overall, Project and endpoint bounds allow, or
   * queues it behind its busy endpoint.
   *
   * @return false if it was neither started nor queued (it is left to its lease)
   */
  public boolean offer(ClaimedDelivery delivery) {
    String project = delivery.projectId();
    String endpoint = endpointKey(delivery);
    synchronized (this) {
      if (!canStart(project, endpoint)) {
        ArrayDeque<Waiting> queue = waiting.get(endpoint);
        if ((queue != null && queue.size() >= QUEUE_PER_ENDPOINT)
            || waitingByProject.getOrDefault(project, 0) >= QUEUE_PER_PROJECT
            || waitingCount >= 2 * limits.maxInFlight()) {
          return false;
        }
        waiting
            .computeIfAbsent(endpoint, k -> new ArrayDeque<>())
            .add(new Waiting(delivery, nanoTime.getAsLong()));
        waitingByProject.merge(project, 1, Integer::sum);
        waitingCount++;
        return true;
      }
      reserve(project, endpoint);
    }
    return submit(delivery, project, endpoint);
  }

  private boolean canStart(String project, String endpoint) {
    return inFlight < limits.maxInFlight()
        && byProject.getOrDefault(project, 0) < limits.perProject()
        && byEndpoint.getOrDefault(endpoint, 0) < limits.perEndpoint();
  }

  private void reserve(String project, String endpoint) {
    inFlight++;
    byProject.merge(project, 1, Integer::sum);
    byEndpoint.merge(endpoint, 1, Integer::sum);
  }

  private boolean submit(ClaimedDelivery delivery, String project, String endpoint) {
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

  private void release(String project, String endpoint) {
    List<ClaimedDelivery> next;
    synchronized (this) {
      inFlight--;
      byProject.computeIfPresent(project, (k, v) -> v == 1 ? null : v - 1);
      byEndpoint.computeIfPresent(endpoint, (k, v) -> v == 1 ? null : v - 1);
      next = startable();
    }
    for (ClaimedDelivery d : next) {
      submit(d, d.projectId(), endpointKey(d));
    }
    onSlotFreed.run();
  }

  /**
   * Runs {@code listener} each time an attempt has ended and released its slot (on the attempt's
   * thread; it must be quick and must not throw), so the loop can claim again at once instead of
   * after its tick.
   */
  public void onSlotFreed(Runnable listener) {
    this.onSlotFreed = Objects.requireNonNull(listener, "listener");
  }

  /** Takes the waiting deliveries that may start now (slots reserved), dropping stale ones. */
  private List<ClaimedDelivery> startable() {
    List<ClaimedDelivery> out = new ArrayList<>();
    long now = nanoTime.getAsLong();
    List<String> served = new ArrayList<>();
    for (Iterator<Map.Entry<String, ArrayDeque<Waiting>>> it = waiting.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<String, ArrayDeque<Waiting>> e = it.next();
      ArrayDeque<Waiting> queue = e.getValue();
      while (!queue.isEmpty()) {
        Waiting w = queue.peek();
        String project = w.delivery().projectId();
        if (now - w.sinceNanos() > maxWaitNanos) {
          queue.poll();
          unwait(project);
          log.debug(
              "webhook.deferred {}: waited too long; due again after its lease", w.delivery());
          continue;
        }
        if (!canStart(project, e.getKey())) {
          break;
        }
        queue.poll();
        unwait(project);
        reserve(project, e.getKey());
        out.add(w.delivery());
        served.add(e.getKey());
      }
      if (queue.isEmpty()) {
        it.remove();
      }
    }
    // Endpoints just served go to the back of the turn.
    for (String endpoint : served) {
      ArrayDeque<Waiting> queue = waiting.remove(endpoint);
      if (queue != null) {
        waiting.put(endpoint, queue);
      }
    }
    return out;
  }

  private void unwait(String project) {
    waitingCount--;
    waitingByProject.computeIfPresent(project, (k, v) -> v == 1 ? null : v - 1);
  }

  private static String endpointKey(ClaimedDelivery d) {
    // Project ids and webhook ids are identifiers without a newline.
    return d.projectId() + "\n" + d.webhookId();
  }

  /**
   * Stops starting attempts and waits up to {@code grace} for running ones (an attempt lasts at
   * most the sender's total timeout); any still running is interrupted and its delivery is retried
   * after its lease, as are the waiting ones.
   */
  public void close(Duration grace) {
    synchronized (this) {
      waiting.clear();
      waitingByProject.clear();
      waitingCount = 0;
    }
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
