package dev.qinglong.app.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookEventType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RejectionEventsTest {
  private static final EffectiveLimit LIMIT = EffectiveLimit.defaultLimit(2);

  /** Records every write; the first one waits for {@code release} (a slow database). */
  private static final class Recording implements WebhookEventOutbox {
    final List<String> keys = new CopyOnWriteArrayList<>();
    final List<String> payloads = new CopyOnWriteArrayList<>();
    final CountDownLatch release;
    final CountDownLatch firstStarted = new CountDownLatch(1);

    Recording(CountDownLatch release) {
      this.release = release;
    }

    @Override
    public int enqueueOnce(
        String projectId, WebhookEventType type, String dedupKey, String payload) {
      firstStarted.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      keys.add(projectId + " " + type.wireName() + " " + dedupKey);
      payloads.add(payload);
      return 1;
    }

    @Override
    public boolean enqueueOnce(
        String projectId, String webhookId, WebhookEventType type, String dedupKey, String p) {
      throw new AssertionError("not used");
    }

    @Override
    public List<ThresholdSubscription> thresholdSubscriptions() {
      return List.of();
    }
  }

  private static QuotaKey key(String user) {
    return QuotaKey.user("prj-1", user, QuotaOperation.INSPECT);
  }

  @Test
  void aFloodOfRefusalsOfOneBucketAndWindowWritesOnceAndANewWindowAgain() {
    Recording outbox = new Recording(new CountDownLatch(0));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (RejectionEvents events =
        new RejectionEvents(outbox, Duration.ofMinutes(1), Clock.systemUTC(), registry)) {
      for (int i = 0; i < 100; i++) {
        events.rejected(key("alice"), new QuotaDecision.Rejected(5, LIMIT, 60_000));
      }
      events.rejected(key("alice"), new QuotaDecision.Rejected(5, LIMIT, 120_000));
      events.rejected(key("bob"), new QuotaDecision.Rejected(5, LIMIT, 60_000));
      await().atMost(Duration.ofSeconds(10)).until(() -> outbox.keys.size() == 3);
      assertThat(outbox.keys)
          .containsExactlyInAnyOrder(
              "prj-1 management-quota.rejected mqr:user:alice:plugin-package.inspect:60000",
              "prj-1 management-quota.rejected mqr:user:alice:plugin-package.inspect:120000",
              "prj-1 management-quota.rejected mqr:user:bob:plugin-package.inspect:60000");
      assertThat(outbox.payloads.get(0))
          .contains("\"windowStartedAt\":\"1970-01-01T00:01:00.000Z\"", "\"limit\":2");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  registry
                          .get("qinglong.webhook.events.written")
                          .tag("type", "management-quota.rejected")
                          .counter()
                          .count()
                      == 3);
    }
  }

  @Test
  void aFullQueueDropsTheEventCountsItAndNeverBlocksTheCaller() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Recording outbox = new Recording(release);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (RejectionEvents events =
        new RejectionEvents(outbox, Duration.ofMinutes(1), Clock.systemUTC(), registry)) {
      // The writer is busy with the first event; then the queue fills; then refusals are dropped.
      events.rejected(key("u-0"), new QuotaDecision.Rejected(5, LIMIT, 60_000));
      assertThat(outbox.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
      int extra = 5;
      for (int i = 1; i <= RejectionEvents.QUEUE_CAPACITY + extra; i++) {
        events.rejected(key("u-" + i), new QuotaDecision.Rejected(5, LIMIT, 60_000));
      }
      assertThat(
              registry
                  .get("qinglong.webhook.events.dropped")
                  .tag("type", "management-quota.rejected")
                  .counter()
                  .count())
          .isEqualTo(extra);
      release.countDown();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> outbox.keys.size() == 1 + RejectionEvents.QUEUE_CAPACITY);
      // A dropped bucket is not remembered: its next refusal is written.
      events.rejected(
          key("u-" + (RejectionEvents.QUEUE_CAPACITY + extra)),
          new QuotaDecision.Rejected(5, LIMIT, 60_000));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> outbox.keys.size() == 2 + RejectionEvents.QUEUE_CAPACITY);
    }
  }
}
