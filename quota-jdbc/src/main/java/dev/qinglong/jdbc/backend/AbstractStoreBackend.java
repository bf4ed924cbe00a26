package dev.qinglong.jdbc.backend;

import dev.qinglong.core.ai.ModelQuotaStore;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.StoredLeases;
import dev.qinglong.gateway.worker.WorkerLock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What every backend shares: the parts it was asked for, the ports it opened (null: not opened for
 * this role, and asking for one is a wiring bug), its probes, and closing what it opened in reverse
 * order. A backend fills the fields while it opens.
 */
public abstract class AbstractStoreBackend implements StoreBackend {
  protected final BackendParts parts;
  protected final OpenedParts opened = new OpenedParts();
  protected final List<SchemaProbe> probes = new ArrayList<>();
  protected ProjectPolicyStore policy;
  protected GovernanceStore governance;
  protected ManagementQuotaStore quota;
  protected ModelQuotaStore modelQuota;
  protected GovernanceStore publisher;
  protected WorkerLock workerLock;

  protected AbstractStoreBackend(BackendParts parts) {
    this.parts = Objects.requireNonNull(parts);
  }

  /** Starts this store's download coordination; called only when downloads were asked for. */
  protected abstract DownloadCoordination openDownloads(
      DownloadSettings settings, LeaseListener listener);

  @Override
  public final BackendParts parts() {
    return parts;
  }

  @Override
  public final ProjectPolicyStore policy() {
    return OpenedParts.require(policy, "Project Policy");
  }

  @Override
  public final GovernanceStore governance() {
    return OpenedParts.require(governance, "the governance store");
  }

  @Override
  public final ManagementQuotaStore managementQuota() {
    return OpenedParts.require(quota, "the management quota store");
  }

  @Override
  public final ModelQuotaStore modelQuota() {
    return OpenedParts.require(modelQuota, "the model quota store");
  }

  @Override
  public final GovernanceStore publisher() {
    return OpenedParts.require(publisher, "the worker's publishing store");
  }

  @Override
  public final WorkerLock workerLock() {
    return OpenedParts.require(workerLock, "the worker lock");
  }

  @Override
  public final DownloadCoordination startDownloads(
      DownloadSettings settings, LeaseListener listener) {
    if (!parts.downloads()) {
      throw new IllegalStateException(
          "downloads were not opened for this process's role. Indicates a bug.");
    }
    return opened.add(openDownloads(settings, listener));
  }

  /** None by default: a store without database-side download coordination (SQLite). */
  @Override
  public StoredLeases storedLeases() {
    return StoredLeases.NONE;
  }

  @Override
  public final List<SchemaProbe> probes() {
    return List.copyOf(probes);
  }

  @Override
  public final void close() {
    opened.close();
  }
}
