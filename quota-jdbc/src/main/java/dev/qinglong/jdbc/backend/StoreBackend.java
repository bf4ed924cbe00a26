package dev.qinglong.jdbc.backend;

import dev.qinglong.core.ai.ModelQuotaStore;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.StoredLeases;
import dev.qinglong.gateway.worker.WorkerLock;
import java.util.List;

/**
 * One store (SQLite or PostgreSQL) opened for one process: exactly the pools, logins, stores,
 * worker lock, download coordination and readiness probes its {@link BackendParts} ask for. The
 * application chooses the backend once ({@code qinglong.store}) and asks it for ports only; asking
 * for a part that was not opened is a wiring bug and throws {@link IllegalStateException}. Closing
 * the backend closes every pool and connection it opened.
 */
public interface StoreBackend extends AutoCloseable {

  /** {@code sqlite} or {@code postgres}. */
  String kind();

  /** What was opened. */
  BackendParts parts();

  /**
   * Project Policy: reads and member writes with {@link BackendParts#governance()}; read-only
   * (writes fail with a store error) for a process that only serves downloads.
   */
  ProjectPolicyStore policy();

  /**
   * Plugin-package governance: the full store with {@link BackendParts#governance()}; for a process
   * that only serves downloads, a store whose only safe use is the published-artifact read.
   */
  GovernanceStore governance();

  /** The durable management quota ({@link BackendParts#governance()} only). */
  ManagementQuotaStore managementQuota();

  /** The model-invocation quota ({@link BackendParts#modelQuota()} only). */
  ModelQuotaStore modelQuota();

  /** The store the completion worker publishes through ({@link BackendParts#worker()} only). */
  GovernanceStore publisher();

  /** The lock that keeps one completion worker active per database. */
  WorkerLock workerLock();

  /**
   * Starts the download side ({@link BackendParts#downloads()} only); the backend closes it.
   *
   * @throws IllegalStateException with an operator-readable message when this process may not start
   *     its download side (a shared slot is busy, the stored policy differs, the database is set up
   *     for the other mode)
   */
  DownloadCoordination startDownloads(DownloadSettings settings, LeaseListener listener);

  /** The readiness probes of every opened pool and schema. */
  List<SchemaProbe> probes();

  /**
   * The shared-download policy and slot leases stored in the database, for operators ({@code GET
   * /v1/downloads/gateways}); {@link StoredLeases#NONE} where the store has none (SQLite).
   *
   * @throws dev.qinglong.core.kernel.StoreUnavailableException if the database cannot answer
   */
  StoredLeases storedLeases();

  @Override
  void close();
}
