package dev.qinglong.gateway.governor;

/**
 * Metrics hooks of the {@link DownloadGovernor}. Called on the downloading thread, so
 * implementations must be cheap and must not throw (a thrown exception is logged and ignored).
 */
public interface GovernorListener {

  /** Does nothing. */
  GovernorListener NONE = new GovernorListener() {};

  /** {@code bytes} of payload were admitted for {@code principal}. */
  default void onBytesServed(String principal, long bytes) {}

  /** A chunk waited {@code nanos} for tokens of the given limit. */
  default void onThrottled(Limit limit, long nanos) {}

  /** A chunk was refused: the wait would exceed its bound, or the gate was closed. */
  default void onRefused(Refusal refusal) {}

  /** Which limit made a chunk wait. */
  enum Limit {
    TOTAL,
    PRINCIPAL
  }

  /** Why a chunk was refused. */
  enum Refusal {
    WAIT_BOUND_EXCEEDED,
    HALTED
  }
}
