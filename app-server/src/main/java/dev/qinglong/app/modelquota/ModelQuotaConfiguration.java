package dev.qinglong.app.modelquota;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.EnumCounters;
import dev.qinglong.app.platform.ModelQuotaProperties;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.modelquota.ModelQuota;
import dev.qinglong.core.modelquota.ModelQuotaListener.Event;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The optional model-invocation quota feature (docs/design.md#model-invocation-quota), loaded only
 * when {@code qinglong.ai.enabled=true} and in the roles that serve the management API. Disabled,
 * none of these beans exist, no AI migration runs and the AI routes are unknown (404).
 *
 * <p>Its store comes from the backend: on PostgreSQL a pool logging in as {@code ql3_runtime}; on
 * SQLite the one pool of the file. The management quota of the usage reads is the base one.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "qinglong.ai", name = "enabled", havingValue = "true")
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ModelQuotaConfiguration {

  /**
   * The service, counting its events as {@code qinglong_model_quota_events_total{event}} (admitted,
   * admission_replayed, refused, settled, settlement_replayed, conflict, unavailable).
   */
  @Bean
  ModelQuota modelInvocationQuota(
      ProjectPolicy policy,
      ManagementQuota managementQuota,
      ModelQuotaStore store,
      MeterRegistry registry) {
    EnumCounters<Event> events =
        new EnumCounters<>(
            registry,
            "qinglong.model.quota.events",
            "Model-invocation quota events (reservations, settlements, refusals)",
            "event",
            Event.class);
    return new ModelQuota(policy, managementQuota, store, events::increment);
  }

  /**
   * The recovery sweep of StepRuns left running ({@code qinglong.ai.recover-unknown-after}, 0 =
   * none: the bean then schedules nothing).
   */
  @Bean(destroyMethod = "close")
  StaleStepRunRecovery staleStepRunRecovery(
      ModelQuota quota, ModelQuotaProperties ai, MeterRegistry registry) {
    return new StaleStepRunRecovery(
        quota, ai.recoverUnknownAfter(), ai.recoverUnknownInterval(), registry);
  }
}
