package dev.qinglong.app.webhooks;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.webhooks.ModelQuotaThresholds;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The two webhook events that report no change of their own: {@code management-quota.rejected}
 * (written after a refusal by {@link RejectionEvents}, roles {@code all} and {@code writer}) and
 * {@code model-quota.threshold} (derived by the active worker, {@link ModelQuotaThresholdPass},
 * roles {@code all} and {@code worker}, only with the model quota on). Both are absent when the
 * store opened no webhook store (no sealing key).
 */
public class WebhookEventsConfiguration {

  /** The management side: a refusal listener handed to the management quota. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnRole({Role.ALL, Role.WRITER})
  public static class Rejections {
    /**
     * A {@link QuotaDecisionListener} the management quota calls on every refusal (none without a
     * webhook store).
     */
    @Bean(destroyMethod = "close")
    RejectionEvents rejectionEvents(OpenedStore store, MeterRegistry registry) {
      WebhookEventOutbox outbox =
          store.webhookEvents().orElse(WebhookEventsConfiguration.NO_OUTBOX);
      // A bucket's key is remembered for the longest window the management quota allows.
      return new RejectionEvents(outbox, LONGEST_WINDOW, Clock.systemUTC(), registry);
    }
  }

  /** The worker side: the threshold pass while this process is the active worker. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnRole({Role.ALL, Role.WORKER})
  @ConditionalOnProperty(prefix = "qinglong.ai", name = "enabled", havingValue = "true")
  public static class Thresholds {
    @Bean(destroyMethod = "close")
    ModelQuotaThresholdPass modelQuotaThresholdPass(
        OpenedStore.Worker worker, MeterRegistry registry) {
      WebhookEventOutbox outbox = worker.webhookEvents().orElse(NO_OUTBOX);
      ModelQuotaStore usage = worker.windowUsage().orElse(null);
      ModelQuotaThresholdPass pass =
          new ModelQuotaThresholdPass(
              new ModelQuotaThresholds(
                  outbox, usage == null ? project -> null : usage::currentWindowUsage),
              worker.lock(),
              ModelQuotaThresholdPass.DEFAULT_INTERVAL,
              registry);
      if (worker.webhookEvents().isPresent() && usage != null) {
        pass.start();
      }
      return pass;
    }
  }

  /** The management quota's hard bound on its window. */
  static final Duration LONGEST_WINDOW = Duration.ofMinutes(5);

  /** No webhook store: nothing subscribes, nothing is written. */
  static final WebhookEventOutbox NO_OUTBOX =
      new WebhookEventOutbox() {
        @Override
        public int enqueueOnce(
            String projectId,
            dev.qinglong.core.webhooks.WebhookEventType type,
            String dedupKey,
            String payload) {
          return 0;
        }

        @Override
        public boolean enqueueOnce(
            String projectId,
            String webhookId,
            dev.qinglong.core.webhooks.WebhookEventType type,
            String dedupKey,
            String payload) {
          return false;
        }

        @Override
        public java.util.List<ThresholdSubscription> thresholdSubscriptions() {
          return java.util.List.of();
        }
      };
}
