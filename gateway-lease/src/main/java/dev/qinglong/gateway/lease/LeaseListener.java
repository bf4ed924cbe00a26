package dev.qinglong.gateway.lease;

/**
 * Hooks of a shared-download lease, for readiness, metrics and logs. Called on the lease's own
 * threads; implementations must be quick and must not throw (exceptions are logged and ignored).
 */
public interface LeaseListener {

  /** Does nothing. */
  LeaseListener NONE = new LeaseListener() {};

  /** A renewal succeeded in time. */
  default void onRenewed(int slot, long generation) {}

  /**
   * The local window now runs from {@code startNanos}, the lease clock's monotonic time at the
   * start of the acquisition or renewal that just succeeded in time: serving ends at the latest
   * {@code localValidity} after it. Fired on the lease's thread, before {@link #onRenewed}.
   */
  default void onWindowStarted(int slot, long startNanos) {}

  /** A renewal attempt failed (database unreachable or statement error); the lease may survive. */
  default void onRenewalFailed(int slot, Exception cause) {}

  /**
   * The lease is lost for good: payload has stopped and the process must restart. Fired exactly
   * once per lease, never after {@link LeaseState#CLOSED}.
   */
  default void onLost(int slot, String reason) {}
}
