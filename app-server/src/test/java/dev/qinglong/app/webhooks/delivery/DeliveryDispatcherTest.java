package dev.qinglong.app.webhooks.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.core.webhooks.ClaimedDelivery;
import dev.qinglong.core.webhooks.WebhookEventType;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeliveryDispatcherTest {
  private static final Duration MAX_WAIT = Duration.ofSeconds(20);

  private final CountDownLatch slowEndpoint = new CountDownLatch(1);
  private final Map<String, CountDownLatch> done = new ConcurrentHashMap<>();
  private final List<String> started = new CopyOnWriteArrayList<>();
  private final AtomicLong nanos = new AtomicLong();
  private DeliveryDispatcher dispatcher;

  @AfterEach
  void close() {
    slowEndpoint.countDown();
    if (dispatcher != null) {
      dispatcher.close(Duration.ofSeconds(5));
    }
  }

  private DeliveryDispatcher dispatcher(int max, int perProject, int perEndpoint) {
    dispatcher =
        new DeliveryDispatcher(
            new DeliveryDispatcher.Limits(max, perProject, perEndpoint),
            MAX_WAIT,
            this::attempt,
            nanos::get);
    return dispatcher;
  }

  private static ClaimedDelivery delivery(String id, String project, String webhook) {
    return new ClaimedDelivery(
        id,
        project,
        webhook,
        WebhookEventType.WEBHOOK_TEST,
        "{}",
        0,
        0,
        URI.create("https://h.example/"),
        List.of(new byte[24]),
        1);
  }

  /** Attempts to webhooks named slow… block until released; others finish at once. */
  private void attempt(ClaimedDelivery d) {
    started.add(d.deliveryId());
    try {
      if (d.webhookId().startsWith("slow")) {
        slowEndpoint.await(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      done.computeIfAbsent(d.deliveryId(), k -> new CountDownLatch(1)).countDown();
    }
  }

  private boolean finished(String id) throws InterruptedException {
    return done.computeIfAbsent(id, k -> new CountDownLatch(1)).await(10, TimeUnit.SECONDS);
  }

  @Test
  void aSlowEndpointHoldsOnlyItsOwnSlotsAndAnotherProjectIsDeliveredMeanwhile()
      throws InterruptedException {
    dispatcher(8, 4, 2);

    assertThat(dispatcher.offer(delivery("s1", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("s2", "p1", "slow"))).isTrue();
    // Beyond the endpoint's two slots: a short queue behind it, then left to the lease.
    for (int i = 3; i <= 2 + DeliveryDispatcher.QUEUE_PER_ENDPOINT; i++) {
      assertThat(dispatcher.offer(delivery("s" + i, "p1", "slow"))).isTrue();
    }
    assertThat(dispatcher.offer(delivery("s-over", "p1", "slow"))).isFalse();
    assertThat(dispatcher.waiting()).isEqualTo(DeliveryDispatcher.QUEUE_PER_ENDPOINT);
    // Waiting deliveries take no slot from anyone.
    assertThat(dispatcher.freeSlots()).isEqualTo(6);

    for (int i = 0; i < 20; i++) {
      assertThat(dispatcher.offer(delivery("f" + i, "p2", "fast"))).isTrue();
      assertThat(finished("f" + i)).isTrue();
      // Its slot is released right after the attempt; the slow endpoint still holds its two.
      await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.inFlight() == 2);
    }
    assertThat(started).doesNotContain("s3");

    slowEndpoint.countDown();
    for (int i = 1; i <= 2 + DeliveryDispatcher.QUEUE_PER_ENDPOINT; i++) {
      assertThat(finished("s" + i)).as("s" + i).isTrue();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.inFlight() == 0);
    assertThat(dispatcher.waiting()).isZero();
    assertThat(started).doesNotContain("s-over");
  }

  @Test
  void aBurstToOneEndpointGoesOutInOrderAsItsSlotFrees() throws InterruptedException {
    dispatcher(8, 4, 1);

    for (int i = 1; i <= 4; i++) {
      assertThat(dispatcher.offer(delivery("b" + i, "p1", "slow"))).isTrue();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> !started.isEmpty());
    assertThat(started).containsExactly("b1");
    assertThat(dispatcher.waiting()).isEqualTo(3);
    slowEndpoint.countDown();
    for (int i = 1; i <= 4; i++) {
      assertThat(finished("b" + i)).isTrue();
    }
    assertThat(started).containsExactly("b1", "b2", "b3", "b4");
  }

  @Test
  void aDeliveryThatWaitedLongerThanItsBoundIsLeftToItsLease() throws InterruptedException {
    dispatcher(8, 4, 1);
    assertThat(dispatcher.offer(delivery("w1", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("w2", "p1", "slow"))).isTrue();

    nanos.addAndGet(MAX_WAIT.toNanos() + 1);
    slowEndpoint.countDown();

    assertThat(finished("w1")).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.inFlight() == 0);
    assertThat(dispatcher.waiting()).isZero();
    assertThat(started).containsExactly("w1");
  }

  @Test
  void aProjectIsBoundAcrossItsEndpoints() {
    dispatcher(8, 3, 2);

    assertThat(dispatcher.offer(delivery("a1", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("a2", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("b1", "p1", "slow-b"))).isTrue();
    // The Project's bound (3) is reached although endpoint slow-c has none running: c1 waits.
    assertThat(dispatcher.offer(delivery("c1", "p1", "slow-c"))).isTrue();
    assertThat(dispatcher.waiting()).isEqualTo(1);
    // Another Project is not affected.
    assertThat(dispatcher.offer(delivery("d1", "p2", "slow-d"))).isTrue();
    assertThat(dispatcher.inFlight()).isEqualTo(4);
    assertThat(started).doesNotContain("c1");
  }

  @Test
  void theOverallBoundIsKept() {
    dispatcher(3, 3, 3);

    assertThat(dispatcher.offer(delivery("a1", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("a2", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("a3", "p1", "slow"))).isTrue();
    assertThat(dispatcher.freeSlots()).isZero();
    assertThat(dispatcher.offer(delivery("b1", "p2", "fast"))).isTrue();
    assertThat(dispatcher.inFlight()).isEqualTo(3);
    assertThat(started).doesNotContain("b1");
  }
}
