package dev.qinglong.backend;

import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookStore;
import dev.qinglong.gateway.downloads.DownloadCoordinator;
import dev.qinglong.gateway.lease.StoredLeases;
import dev.qinglong.gateway.worker.WorkerLock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One store (SQLite or PostgreSQL) opened for one process: exactly the pools, logins, stores,
 * worker lock, download coordinator and readiness probes its {@link BackendParts} ask for, each
 * part present only when it was opened. There is no getter that fails for a part the role lacks:
 * the application hands each present part to the components of the roles that have it. Closing
 * closes every pool and connection the store opened, in reverse order.
 *
 * @param kind {@code sqlite} or {@code postgres}
 * @param parts what was asked for
 * @param catalog Project Policy and plugin-package governance: read-write with {@link
 *     BackendParts#governance()}; read-only (writes fail with a store error) for a process that
 *     only serves downloads; absent for a PostgreSQL worker
 * @param managementQuota the durable management quota ({@link BackendParts#governance()})
 * @param modelQuota the model-invocation quota ({@link BackendParts#modelQuota()})
 * @param webhooks webhook registrations, the delivery log and test events ({@link
 *     BackendParts#governance()}; PostgreSQL: {@code ql3_admin}); absent without a secret sealing
 *     key (a PostgreSQL store given none: the webhook routes answer 503)
 * @param webhookEvents where the management side writes a {@code management-quota.rejected} event
 *     (once per bucket and window, by its deduplication key; PostgreSQL: {@code ql3_admin});
 *     present exactly when {@code webhooks} is
 * @param worker the publication worker's publishing store and lock ({@link BackendParts#worker()})
 * @param downloads what starts the download side with the application's own settings ({@link
 *     BackendParts#downloads()})
 * @param storedLeases the shared-download policy and slot leases stored in the database, for
 *     operators; {@link StoredLeases.Reader#NONE} where the store has none (SQLite)
 * @param probes the readiness probes of every opened pool and schema
 */
public record OpenedStore(
    String kind,
    BackendParts parts,
    Optional<Catalog> catalog,
    Optional<ManagementQuotaStore> managementQuota,
    Optional<ModelQuotaStore> modelQuota,
    Optional<WebhookStore> webhooks,
    Optional<WebhookEventOutbox> webhookEvents,
    Optional<Worker> worker,
    Optional<DownloadCoordinator> downloads,
    StoredLeases.Reader storedLeases,
    List<SchemaProbe> probes,
    OpenedParts resources)
    implements AutoCloseable {

  public OpenedStore {
    Objects.requireNonNull(kind);
    Objects.requireNonNull(webhooks);
    Objects.requireNonNull(webhookEvents);
    Objects.requireNonNull(parts);
    probes = List.copyOf(probes);
    Objects.requireNonNull(storedLeases);
    Objects.requireNonNull(resources);
  }

  /** Project Policy and plugin-package governance through one login. */
  public record Catalog(ProjectPolicyStore policy, GovernanceStore governance) {
    public Catalog {
      Objects.requireNonNull(policy);
      Objects.requireNonNull(governance);
    }
  }

  /**
   * The publication worker's side.
   *
   * @param publisher the store the worker publishes through
   * @param lock the lock that keeps one publication worker active per database
   * @param webhooks the webhook delivery worker's store ({@link WebhookStore#claimDue}, {@link
   *     WebhookStore#recordAttempt}, {@link WebhookStore#oldestDueCreatedAtMs}; PostgreSQL: {@code
   *     ql3_package_executor}), used only while this process holds {@code lock}; absent without a
   *     secret sealing key (then no webhook is delivered)
   * @param webhookEvents where the worker's threshold pass writes {@code model-quota.threshold}
   *     events (PostgreSQL: {@code ql3_package_executor}); present exactly when {@code webhooks} is
   * @param windowUsage the threshold pass's read of model-quota windows ({@link
   *     ModelQuotaStore#currentWindowUsage} only; PostgreSQL: {@code ql3_package_executor}, which
   *     may read the window tables and nothing else of the model quota, db/postgres-ai V5); present
   *     with {@code webhookEvents}, used only when the model quota is enabled
   */
  public record Worker(
      GovernanceStore publisher,
      WorkerLock lock,
      Optional<WebhookStore> webhooks,
      Optional<WebhookEventOutbox> webhookEvents,
      Optional<ModelQuotaStore> windowUsage) {
    public Worker {
      Objects.requireNonNull(publisher);
      Objects.requireNonNull(lock);
      Objects.requireNonNull(webhooks);
      Objects.requireNonNull(webhookEvents);
      Objects.requireNonNull(windowUsage);
    }

    /** A worker that delivers webhooks but derives no threshold event. */
    public Worker(GovernanceStore publisher, WorkerLock lock, Optional<WebhookStore> webhooks) {
      this(publisher, lock, webhooks, Optional.empty(), Optional.empty());
    }

    /** A worker without webhook delivery. */
    public Worker(GovernanceStore publisher, WorkerLock lock) {
      this(publisher, lock, Optional.empty());
    }
  }

  @Override
  public void close() {
    resources.close();
  }
}
