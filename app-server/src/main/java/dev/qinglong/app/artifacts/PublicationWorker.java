package dev.qinglong.app.artifacts;

import dev.qinglong.gateway.worker.WorkerLease;
import dev.qinglong.gateway.worker.WorkerState;

/**
 * The publication worker of this process (roles {@code all} and {@code worker}): it publishes
 * approved install/upgrade proposals whose artifact is stored and verified
 * (docs/design.md#publication-worker). Not to be confused with the model-invocation completion.
 */
public final class PublicationWorker implements AutoCloseable {
  private final WorkerLease lease;

  PublicationWorker(WorkerLease lease) {
    this.lease = lease;
  }

  /** The worker's state: active, standby, … */
  public WorkerState state() {
    return lease.state();
  }

  @Override
  public void close() {
    lease.close();
  }
}
