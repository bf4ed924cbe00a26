package dev.qinglong.app.worker;

import dev.qinglong.gateway.worker.WorkerLease;
import dev.qinglong.gateway.worker.WorkerState;

/** The completion worker of this process, or none (roles writer and reader). */
public final class CompletionWorker implements AutoCloseable {
  private final WorkerLease lease; // null: this role runs no worker
  private final AutoCloseable resources;

  CompletionWorker(WorkerLease lease, AutoCloseable resources) {
    this.lease = lease;
    this.resources = resources;
  }

  static CompletionWorker none() {
    return new CompletionWorker(null, () -> {});
  }

  /** The worker's state; {@link WorkerState#STOPPED} if this role runs none. */
  public WorkerState state() {
    return lease == null ? WorkerState.STOPPED : lease.state();
  }

  /** Whether this role runs a worker. */
  public boolean runs() {
    return lease != null;
  }

  @Override
  public void close() throws Exception {
    if (lease != null) {
      lease.close();
    }
    resources.close();
  }
}
