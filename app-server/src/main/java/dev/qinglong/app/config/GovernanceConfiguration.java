package dev.qinglong.app.config;

import dev.qinglong.app.metrics.MicrometerQuotaDecisionListener;
import dev.qinglong.app.store.QingLongStores;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.QuotaDecisionListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Set;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The core services, wired to the selected store. */
@Configuration(proxyBeanMethods = false)
public class GovernanceConfiguration {

  @Bean
  QuotaDecisionListener quotaDecisionListener(MeterRegistry registry) {
    return new MicrometerQuotaDecisionListener(registry);
  }

  @Bean
  ProjectPolicy projectPolicy(QingLongStores stores, QingLongProperties properties) {
    return new ProjectPolicy(
        stores.policyStore(), Set.copyOf(properties.getAuth().getGlobalAdmins()));
  }

  @Bean
  ManagementQuota managementQuota(
      QingLongStores stores, QingLongProperties properties, QuotaDecisionListener listener) {
    return new ManagementQuota(
        stores.quotaStore(), properties.getManagementQuota().toPolicy(), listener);
  }

  @Bean
  PluginPackageGovernance pluginPackageGovernance(
      ProjectPolicy policy, ManagementQuota quota, QingLongStores stores) {
    return new PluginPackageGovernance(policy, quota, stores.governanceStore(), Clock.systemUTC());
  }
}
