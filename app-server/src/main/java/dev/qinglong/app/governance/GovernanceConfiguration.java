package dev.qinglong.app.governance;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.CallerQuota;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecisionListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The ADR 000 services, in the roles that serve the management API ({@code all}, {@code writer}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class GovernanceConfiguration {

  @Bean
  QuotaDecisionListener quotaDecisionListener(MeterRegistry registry) {
    return new MicrometerQuotaDecisionListener(registry);
  }

  @Bean
  ManagementQuota managementQuota(
      ManagementQuotaStore store,
      ManagementQuotaProperties properties,
      QuotaDecisionListener listener) {
    return new ManagementQuota(store, properties.toPolicy(), listener);
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
