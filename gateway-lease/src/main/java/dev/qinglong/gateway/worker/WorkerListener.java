package dev.qinglong.gateway.worker;

/**
 * Hooks of a {@link WorkerLease} for metrics and tests. Called on the worker thread; must be quick
 * and must not throw (exceptions are logged and ignored).
 */
public interface WorkerListener {

  /** Does nothing. */
  WorkerListener NONE = new WorkerListener() {};

  /** The worker changed state. */
  default void onStateChanged(WorkerState state) {}

  /** A pass finished and published {@code published} proposals. */
  default void onPass(int published) {}

  /** A pass failed; it is retried on the next pass. */
  default void onPassFailed(RuntimeException cause) {}
}
