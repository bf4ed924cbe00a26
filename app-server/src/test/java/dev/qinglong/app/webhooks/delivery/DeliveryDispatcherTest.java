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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeliveryDispatcherTest {
  private final CountDownLatch slowEndpoint = new CountDownLatch(1);
  private final Map<String, CountDownLatch> done = new ConcurrentHashMap<>();
  private DeliveryDispatcher dispatcher;

  @AfterEach
  void close() {
    slowEndpoint.countDown();
    if (dispatcher != null) {
      dispatcher.close(Duration.ofSeconds(5));
    }
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
    dispatcher = new DeliveryDispatcher(new DeliveryDispatcher.Limits(8, 4, 2), this::attempt);

    assertThat(dispatcher.offer(delivery("s1", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("s2", "p1", "slow"))).isTrue();
    // The endpoint's bound: a third is left to its lease.
    assertThat(dispatcher.offer(delivery("s3", "p1", "slow"))).isFalse();

    for (int i = 0; i < 20; i++) {
      assertThat(dispatcher.offer(delivery("f" + i, "p2", "fast"))).isTrue();
      assertThat(finished("f" + i)).isTrue();
    }
    assertThat(dispatcher.inFlight()).isEqualTo(2);

    slowEndpoint.countDown();
    assertThat(finished("s1")).isTrue();
    assertThat(finished("s2")).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> dispatcher.inFlight() == 0);
    assertThat(dispatcher.offer(delivery("s3", "p1", "slow"))).isTrue();
  }

  @Test
  void aProjectIsBoundAcrossItsEndpoints() {
    dispatcher = new DeliveryDispatcher(new DeliveryDispatcher.Limits(8, 3, 2), this::attempt);

    assertThat(dispatcher.offer(delivery("a1", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("a2", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("b1", "p1", "slow-b"))).isTrue();
    // The Project's bound (3) is reached although endpoint slow-c has none running.
    assertThat(dispatcher.offer(delivery("c1", "p1", "slow-c"))).isFalse();
    // Another Project is not affected.
    assertThat(dispatcher.offer(delivery("d1", "p2", "slow-d"))).isTrue();
    assertThat(dispatcher.inFlight()).isEqualTo(4);
  }

  @Test
  void theOverallBoundIsKept() {
    dispatcher = new DeliveryDispatcher(new DeliveryDispatcher.Limits(3, 3, 3), this::attempt);

    assertThat(dispatcher.offer(delivery("a1", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("a2", "p1", "slow"))).isTrue();
    assertThat(dispatcher.offer(delivery("a3", "p1", "slow"))).isTrue();
    assertThat(dispatcher.freeSlots()).isZero();
    assertThat(dispatcher.offer(delivery("b1", "p2", "fast"))).isFalse();
  }
}
