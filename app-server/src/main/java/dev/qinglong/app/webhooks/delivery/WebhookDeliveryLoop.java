package dev.qinglong.app.webhooks.delivery;

import dev.qinglong.core.webhooks.ClaimedDelivery;
import dev.qinglong.core.webhooks.WebhookStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims due deliveries and hands them to the {@link DeliveryDispatcher}, only while this process
 * is the active worker: {@code active} is the publication worker's lease (its state is {@code
 * active} only while this process holds the worker lock), so delivery starts and stops with it and
 * takes no lock of its own. A standby process claims nothing.
 *
 * <p>Every tick claims at most as many deliveries as the dispatcher has free slots, each with a
 * lease ({@code lease}, longer than an attempt can take). A claimed delivery whose Project or
 * endpoint is at its bound waits briefly behind it in the dispatcher, or else is due again when its
 * lease ends; a delivery claimed by a worker that died is due again the same way, and the store's
 * claim token keeps a stale worker from recording over a newer claim.
 */
public final class WebhookDeliveryLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WebhookDeliveryLoop.class);

  /** A claim's lease: well over one attempt's 10 s bound. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);

  /** The pause between ticks. */
  public static final Duration DEFAULT_TICK = Duration.ofMillis(500);

  /** How often the queue-age gauge is refreshed from the store. */
  static final Duration QUEUE_AGE_REFRESH = Duration.ofSeconds(5);

  private final WebhookStore store;
  private final BooleanSupplier active;
  private final DeliveryDispatcher dispatcher;
  private final WebhookDeliveryMetrics metrics;
  private final Clock clock;
  private final long leaseMs;
  private final long tickMs;
  private final ScheduledExecutorService ticker;
  // Whether the last claim filled every free slot, so more may be due than could start.
  private volatile boolean saturated;
  // Whether a tick asked for by a freed slot is queued and has not started yet.
  private final AtomicBoolean wakeQueued = new AtomicBoolean();
  private long nextQueueAgeAtMs;
  private boolean wasActive;
  private boolean failing;

  public WebhookDeliveryLoop(
      WebhookStore store,
      BooleanSupplier active,
      DeliveryDispatcher dispatcher,
      WebhookDeliveryMetrics metrics,
      Clock clock,
      Duration lease,
      Duration tick) {
    this.store = Objects.requireNonNull(store, "store");
    this.active = Objects.requireNonNull(active, "active");
    this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.leaseMs = lease.toMillis();
    this.tickMs = tick.toMillis();
    if (leaseMs <= WebhookSender.TOTAL_TIMEOUT.toMillis() || tickMs < 1) {
      throw new IllegalArgumentException(
          "lease must exceed an attempt's " + WebhookSender.TOTAL_TIMEOUT + " and tick >= 1 ms");
    }
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "webhook-delivery-loop");
              t.setDaemon(true);
              return t;
            });
  }

  /** Starts ticking. */
  public void start() {
    dispatcher.onSlotFreed(this::slotFreed);
    ticker.scheduleWithFixedDelay(this::safeTick, 0, tickMs, TimeUnit.MILLISECONDS);
  }

  /**
   * An attempt ended: if the last claim left deliveries that could not start for want of a slot,
   * claim again now on the loop's thread (at most one such tick queued at a time) rather than up to
   * a tick later. Without this a worker delivered at most its slot count per tick (16 per 500 ms)
   * however fast the receivers answered.
   */
  private void slotFreed() {
    if (saturated && wakeQueued.compareAndSet(false, true)) {
      try {
        ticker.execute(
            () -> {
              wakeQueued.set(false);
              safeTick();
            });
      } catch (RejectedExecutionException e) {
        wakeQueued.set(false); // closing: nothing more to claim
      }
    }
  }

  private void safeTick() {
    try {
      // A full batch means more may be due: go again at once rather than after a tick.
      while (tick() && !Thread.currentThread().isInterrupted()) {}
      if (failing) {
        log.info("webhook.delivery-resumed: the store answers again");
        failing = false;
      }
    } catch (RuntimeException e) {
      // Once per outage, not every tick.
      if (!failing) {
        log.warn(
            "webhook.delivery-stalled: claiming failed; retrying every tick: {}", e.toString());
        failing = true;
      }
    }
  }

  /**
   * One tick: claims and starts what is due, if active.
   *
   * @return true if every free slot was filled (more may be due)
   */
  boolean tick() {
    if (!active.getAsBoolean()) {
      if (wasActive) {
        log.info("webhook.delivery-paused: this process is not the active worker");
        wasActive = false;
      }
      metrics.queueAge(0);
      saturated = false;
      return false;
    }
    if (!wasActive) {
      log.info("webhook.delivery-active: this process delivers webhooks");
      wasActive = true;
      nextQueueAgeAtMs = 0;
    }
    long now = clock.millis();
    if (now >= nextQueueAgeAtMs) {
      OptionalLong oldest = store.oldestDueCreatedAtMs();
      metrics.queueAge(oldest.isPresent() ? now - oldest.getAsLong() : 0);
      nextQueueAgeAtMs = now + QUEUE_AGE_REFRESH.toMillis();
    }
    int free = dispatcher.freeSlots();
    if (free <= 0) {
      saturated = true;
      return false;
    }
    List<ClaimedDelivery> claimed = store.claimDue(leaseMs, free);
    saturated = claimed.size() == free;
    int started = 0;
    for (ClaimedDelivery delivery : claimed) {
      if (dispatcher.offer(delivery)) {
        started++;
      } else {
        log.debug(
            "webhook.deferred {}: its Project or endpoint is busy; due again after the lease",
            delivery);
      }
    }
    return claimed.size() == free && started == free;
  }

  /** Stops claiming, then lets running attempts finish (bounded by their timeout). */
  @Override
  public void close() {
    ticker.shutdownNow();
    try {
      ticker.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    dispatcher.close();
  }
}
