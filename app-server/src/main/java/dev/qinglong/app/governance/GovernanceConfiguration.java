package dev.qinglong.app.governance;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.CallerQuota;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaLimits;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecisionListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The management quota (its decisions, the caller's view of it and its limits as data) and the
 * four-eyes governance services, in the roles that serve the management API ({@code all}, {@code
 * writer}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class GovernanceConfiguration {

  /**
   * The management quota; every other {@link QuotaDecisionListener} bean (the refusal's webhook
   * event) hears its refusals too.
   */
  @Bean
  ManagementQuota managementQuota(
      ManagementQuotaStore store,
      ManagementQuotaProperties properties,
      MeterRegistry registry,
      ObjectProvider<QuotaDecisionListener> refusalListeners) {
    return new ManagementQuota(
        store,
        properties.toPolicy(),
        new AuditedQuotaDecisionListener(
            new MicrometerQuotaDecisionListener(registry),
            refusalListeners.orderedStream().toList()));
  }

  @Bean
  ManagementQuotaLimits managementQuotaLimits(
      ProjectPolicy policy, ManagementQuotaStore store, ManagementQuotaProperties properties) {
    return new ManagementQuotaLimits(policy, store, properties.toPolicy());
  }

  @Bean
  CallerQuota callerQuota(
      ProjectPolicy policy, ManagementQuotaStore store, ManagementQuotaProperties properties) {
    return new CallerQuota(policy, store, properties.toPolicy());
  }

  @Bean
  PluginPackageGovernance pluginPackageGovernance(
      ProjectPolicy policy, ManagementQuota quota, OpenedStore.Catalog catalog) {
    return new PluginPackageGovernance(policy, quota, catalog.governance(), Clock.systemUTC());
  }
}
