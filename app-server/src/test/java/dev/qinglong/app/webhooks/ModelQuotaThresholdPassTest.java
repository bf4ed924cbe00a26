package dev.qinglong.app.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.core.webhooks.ModelQuotaThresholds;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookEventType;
import dev.qinglong.gateway.worker.WorkerLock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ModelQuotaThresholdPassTest {

  private static final class Lock implements WorkerLock {
    final AtomicBoolean held = new AtomicBoolean();

    @Override
    public boolean tryAcquire() {
      return held.get();
    }

    @Override
    public boolean isHeld() {
      return held.get();
    }

    @Override
    public void close() {}
  }

  /** Counts the subscription reads (each pass reads them first); fails when told to. */
  private static final class Outbox implements WebhookEventOutbox {
    final AtomicInteger reads = new AtomicInteger();
    final AtomicBoolean failing = new AtomicBoolean();

    @Override
    public int enqueueOnce(String p, WebhookEventType t, String k, String b) {
      return 0;
    }

    @Override
    public boolean enqueueOnce(String p, String w, WebhookEventType t, String k, String b) {
      return false;
    }

    @Override
    public List<ThresholdSubscription> thresholdSubscriptions() {
      reads.incrementAndGet();
      if (failing.get()) {
        throw new IllegalStateException("database down");
      }
      return List.of();
    }
  }

  @Test
  void onlyTheActiveWorkerPassesAndAFailedPassIsCountedNotThrown() {
    Lock lock = new Lock();
    Outbox outbox = new Outbox();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ModelQuotaThresholdPass pass =
        new ModelQuotaThresholdPass(
            new ModelQuotaThresholds(outbox, project -> null),
            lock,
            ModelQuotaThresholdPass.DEFAULT_INTERVAL,
            registry);
    assertThat(pass.runIfActive()).isZero();
    assertThat(outbox.reads.get()).as("a standby reads nothing").isZero();

    lock.held.set(true);
    assertThat(pass.runIfActive()).isZero();
    assertThat(outbox.reads.get()).isEqualTo(1);

    outbox.failing.set(true);
    assertThat(pass.runIfActive()).isZero();
    assertThat(registry.get("qinglong.webhook.threshold.pass.failures").counter().count())
        .isEqualTo(1);
    pass.close();
  }
}
