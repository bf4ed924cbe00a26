package dev.qinglong.app.webhooks.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.standardwebhooks.Webhook;
import dev.qinglong.core.webhooks.ClaimedDelivery;
import dev.qinglong.core.webhooks.WebhookSecrets;
import dev.qinglong.core.webhooks.WebhookTargets;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The loop, the attempt and the sender against a local receiver, on an in-memory store with the
 * contract's claim semantics and a clock the test moves; ticks are called directly (no sleeps).
 */
class WebhookDeliveryLoopTest {
  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final InMemoryDeliveries store = new InMemoryDeliveries();
  private final AtomicBoolean active = new AtomicBoolean(true);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<WebhookDeliveryLoop> loops = new ArrayList<>();
  private WebhookReceiver receiver;
  private WebhookSender sender;
  private final byte[] key = WebhookSecrets.generate();
  private DeliveryDispatcher dispatcher;

  private final Clock storeClock =
      new Clock() {
        @Override
        public ZoneOffset getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return Instant.ofEpochMilli(store.now.get());
        }
      };

  @BeforeEach
  void start() throws Exception {
    receiver = new WebhookReceiver();
    sender =
        new WebhookSender(
            Duration.ofSeconds(2), Duration.ofSeconds(5), DefaultClientTlsStrategy.createDefault());
  }

  @AfterEach
  void stop() {
    receiver.release();
    loops.forEach(WebhookDeliveryLoop::close);
    sender.close();
    receiver.close();
  }

  /** A loop whose failed attempts are retried 10 ms later (store time) within {@code budget}. */
  private WebhookDeliveryLoop loop(boolean insecure, Duration budget) {
    return loop(insecure, budget, new DeliveryDispatcher.Limits(4, 2, 1), Duration.ofMillis(50));
  }

  private WebhookDeliveryLoop loop(
      boolean insecure, Duration budget, DeliveryDispatcher.Limits limits, Duration tick) {
    WebhookTargets targets = new WebhookTargets(insecure, InetAddress::getAllByName);
    WebhookDeliveryMetrics metrics = new WebhookDeliveryMetrics(registry);
    RetrySchedule schedule =
        new RetrySchedule(Duration.ofMillis(10), Duration.ofMillis(10), budget, () -> 0.999);
    WebhookAttempt attempt =
        new WebhookAttempt(
            store,
            new TargetGuard(targets, InetAddress::getAllByName),
            sender,
            schedule,
            metrics,
            storeClock);
    dispatcher = new DeliveryDispatcher(limits, Duration.ofSeconds(20), attempt);
    WebhookDeliveryLoop loop =
        new WebhookDeliveryLoop(store, active::get, dispatcher, metrics, storeClock, LEASE, tick);
    loops.add(loop);
    return loop;
  }

  private WebhookDeliveryLoop loop() {
    return loop(true, Duration.ofHours(24));
  }

  private InMemoryDeliveries.Row add(String id, String project, String path, byte[]... keys) {
    return store.add(id, project, "hook", receiver.url(path), List.of(keys));
  }

  /**
   * Waits until no attempt runs (its slot is free again: metrics and release come after the
   * record).
   */
  private void awaitIdle() {
    await().atMost(WAIT).until(() -> dispatcher.inFlight() == 0);
  }

  private String status(String id) {
    return store.row(id).status;
  }

  private double count(String outcome) {
    return registry
        .get(WebhookDeliveryMetrics.DELIVERIES)
        .tag("outcome", outcome)
        .counter()
        .count();
  }

  @Test
  void aFreedSlotClaimsTheNextDueDeliveryAtOnceNotAfterTheTick() {
    // One slot and a tick of an hour: after the first claim, only freed slots can claim again.
    WebhookDeliveryLoop loop =
        loop(
            true,
            Duration.ofHours(24),
            new DeliveryDispatcher.Limits(1, 1, 1),
            Duration.ofHours(1));
    for (int i = 0; i < 5; i++) {
      add("msg_" + i, "p" + i, "/in", key);
    }

    loop.start();

    await().atMost(WAIT).until(() -> receiver.received().size() == 5);
    await()
        .atMost(WAIT)
        .until(
            () ->
                java.util.stream.IntStream.range(0, 5)
                    .allMatch(i -> status("msg_" + i).equals("delivered")));
  }

  @Test
  void aStandbyProcessClaimsNothing() {
    WebhookDeliveryLoop loop = loop();
    add("msg_a", "p1", "/in", key);
    active.set(false);

    assertThat(loop.tick()).isFalse();

    assertThat(store.claims).isZero();
    assertThat(receiver.received()).isEmpty();
    assertThat(status("msg_a")).isEqualTo("pending");
  }

  @Test
  void theActiveWorkerDeliversASignedEventAndRecordsIt() throws Exception {
    WebhookDeliveryLoop loop = loop();
    add("msg_a", "p1", "/in", key);

    loop.tick();

    await().atMost(WAIT).until(() -> status("msg_a").equals("delivered"));
    awaitIdle();
    WebhookReceiver.Received r = receiver.received().get(0);
    assertThat(r.header("webhook-id")).isEqualTo("msg_a");
    new Webhook(WebhookSecrets.text(key)).verify(r.body(), r.webhookHeaders());
    assertThat(store.row("msg_a").attempts).isEqualTo(1);
    assertThat(store.row("msg_a").lastStatus).isEqualTo(204);
    assertThat(count("delivered")).isEqualTo(1);
    assertThat(registry.get(WebhookDeliveryMetrics.DELIVERY).timer().count()).isEqualTo(1);
  }

  @Test
  void retriesKeepOneWebhookIdAndEachAttemptIsSignedAfresh() throws Exception {
    WebhookDeliveryLoop loop = loop();
    receiver.respond("/in", 500, 503);
    add("msg_r", "p1", "/in", key);

    for (int attempt = 1; attempt <= 3; attempt++) {
      loop.tick();
      int expected = attempt;
      await().atMost(WAIT).until(() -> store.row("msg_r").attempts == expected);
      awaitIdle();
      store.now.addAndGet(20); // past the 10 ms retry delay
    }

    assertThat(status("msg_r")).isEqualTo("delivered");
    List<WebhookReceiver.Received> got = receiver.received();
    assertThat(got)
        .hasSize(3)
        .allSatisfy(r -> assertThat(r.header("webhook-id")).isEqualTo("msg_r"));
    for (WebhookReceiver.Received r : got) {
      new Webhook(WebhookSecrets.text(key)).verify(r.body(), r.webhookHeaders());
    }
    assertThat(count("retrying")).isEqualTo(2);
    assertThat(count("delivered")).isEqualTo(1);
  }

  @Test
  void duringARotationTwoSignaturesAreSentAndEitherSecretVerifies() throws Exception {
    WebhookDeliveryLoop loop = loop();
    byte[] previous = WebhookSecrets.generate();
    add("msg_k", "p1", "/in", key, previous);

    loop.tick();

    await().atMost(WAIT).until(() -> status("msg_k").equals("delivered"));
    WebhookReceiver.Received r = receiver.received().get(0);
    assertThat(r.header("webhook-signature").split(" ")).hasSize(2);
    new Webhook(WebhookSecrets.text(key)).verify(r.body(), r.webhookHeaders());
    new Webhook(WebhookSecrets.text(previous)).verify(r.body(), r.webhookHeaders());
  }

  @Test
  void aClaimWhoseWorkerDiedIsDeliveredAfterItsLeaseWithTheSameIdAndTheStaleClaimIsFenced()
      throws Exception {
    add("msg_d", "p1", "/in", key);
    // A worker claims it and dies before sending.
    ClaimedDelivery dead = store.claimDue(LEASE.toMillis(), 10).get(0);
    WebhookDeliveryLoop loop = loop();

    loop.tick();
    assertThat(receiver.received()).isEmpty(); // still leased

    store.now.addAndGet(LEASE.toMillis() + 1);
    loop.tick();

    await().atMost(WAIT).until(() -> status("msg_d").equals("delivered"));
    assertThat(receiver.received())
        .singleElement()
        .satisfies(r -> assertThat(r.header("webhook-id")).isEqualTo("msg_d"));
    // The dead worker's late record changes nothing.
    assertThat(
            store.recordAttempt(
                dead.deliveryId(),
                dead.claimToken(),
                dev.qinglong.core.webhooks.AttemptResult.failed(500, "late", null)))
        .isFalse();
    assertThat(status("msg_d")).isEqualTo("delivered");
  }

  @Test
  void aHostResolvingToLoopbackIsRefusedAtDeliveryAndNothingIsSent() {
    WebhookDeliveryLoop loop = loop(false, Duration.ofHours(24));
    store.add(
        "msg_s",
        "p1",
        "hook",
        URI.create("https://localhost:" + receiver.port() + "/in"),
        List.of(key));

    loop.tick();

    await().atMost(WAIT).until(() -> store.row("msg_s").attempts == 1);
    assertThat(receiver.received()).isEmpty();
    assertThat(status("msg_s")).isEqualTo("pending");
    assertThat(store.row("msg_s").lastError).contains("loopback");
    assertThat(store.row("msg_s").lastStatus).isNull();
  }

  @Test
  void aSlowEndpointDoesNotDelayAnotherProject() {
    WebhookDeliveryLoop loop = loop();
    add("msg_slow", "p1", "/hold", key);
    add("msg_slow2", "p1", "/hold", key);
    add("msg_fast", "p2", "/in", key);

    loop.tick();

    // p2 is delivered while p1's endpoint holds its one slot (per endpoint: 1).
    await().atMost(WAIT).until(() -> status("msg_fast").equals("delivered"));
    assertThat(status("msg_slow")).isEqualTo("pending");
    // The second row of the busy endpoint waits behind the first (one slot per endpoint here).
    assertThat(store.row("msg_slow2").attempts).isZero();
    assertThat(dispatcher.waiting()).isEqualTo(1);
    receiver.release();
    // It starts as soon as the endpoint's slot frees, without waiting for its lease.
    await().atMost(WAIT).until(() -> status("msg_slow").equals("delivered"));
    await().atMost(WAIT).until(() -> status("msg_slow2").equals("delivered"));
  }

  @Test
  void aDeliveryIsFailedOnceItsBudgetIsSpent() {
    WebhookDeliveryLoop loop = loop(true, Duration.ZERO);
    receiver.respond("/in", 500);
    add("msg_f", "p1", "/in", key);

    loop.tick();

    await().atMost(WAIT).until(() -> status("msg_f").equals("failed"));
    awaitIdle();
    assertThat(store.row("msg_f").lastStatus).isEqualTo(500);
    assertThat(store.row("msg_f").lastError).isEqualTo("HTTP 500");
    assertThat(count("failed")).isEqualTo(1);
  }

  @Test
  void theQueueAgeGaugeShowsTheOldestDueDelivery() {
    WebhookDeliveryLoop loop = loop();
    active.set(false);
    add("msg_q", "p1", "/hold", key);
    store.now.addAndGet(30_000);
    active.set(true);

    loop.tick();

    assertThat(registry.get(WebhookDeliveryMetrics.QUEUE_AGE).gauge().value()).isEqualTo(30.0);
  }
}
