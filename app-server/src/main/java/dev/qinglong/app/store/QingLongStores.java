package dev.qinglong.app.store;

import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import java.util.List;

/**
 * The ports of the selected store (SQLite or PostgreSQL) and what readiness checks. Closing it
 * closes every pool.
 */
public record QingLongStores(
    String kind,
    ProjectPolicyStore policyStore,
    ManagementQuotaStore quotaStore,
    GovernanceStore governanceStore,
    List<SchemaProbe> probes,
    List<AutoCloseable> resources)
    implements AutoCloseable {

  @Override
  public void close() {
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        // Shutting down: nothing left to do with the failure.
      }
    }
  }
}
