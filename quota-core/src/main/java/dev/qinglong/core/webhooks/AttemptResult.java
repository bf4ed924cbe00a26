package dev.qinglong.core.webhooks;

/**
 * The outcome of one delivery attempt, recorded by the worker.
 *
 * @param delivered an endpoint answered 2xx: the delivery ends as delivered
 * @param statusCode the HTTP status, or null if no response came
 * @param error a short reason for a failed attempt (never a reflected response body), or null
 * @param nextAttemptAtMs when to try again; null gives up (the delivery ends as failed). Ignored
 *     when delivered.
 */
public record AttemptResult(
    boolean delivered, Integer statusCode, String error, Long nextAttemptAtMs) {
  /** The longest error text stored; longer text is cut. */
  public static final int MAX_ERROR_LENGTH = 200;

  public AttemptResult {
    if (error != null && error.length() > MAX_ERROR_LENGTH) {
      error = error.substring(0, MAX_ERROR_LENGTH);
    }
  }

  /** An attempt an endpoint accepted. */
  public static AttemptResult delivered(int statusCode) {
    return new AttemptResult(true, statusCode, null, null);
  }

  /** A failed attempt, retried at {@code nextAttemptAtMs} (null: give up). */
  public static AttemptResult failed(Integer statusCode, String error, Long nextAttemptAtMs) {
    return new AttemptResult(false, statusCode, error, nextAttemptAtMs);
  }
}
