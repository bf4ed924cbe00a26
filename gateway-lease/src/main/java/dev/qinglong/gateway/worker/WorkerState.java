package dev.qinglong.gateway.worker;

/** State of a {@link WorkerLease}. */
public enum WorkerState {
  /** Not started yet. */
  NEW,
  /** Another process holds the lock; retrying every standby interval. */
  STANDBY,
  /** This process holds the lock and publishes. */
  ACTIVE,
  /** Closed. */
  STOPPED
}
