package dev.qinglong.core.kernel;

/**
 * A quota window had no room for the request (HTTP 429): nothing was mutated, and the request may
 * be retried once the refusing window has ended.
 */
public abstract class QuotaRefusedException extends QingLongException {
  private final long retryAfterSeconds;

  protected QuotaRefusedException(String message, long retryAfterSeconds) {
    super(message);
    if (retryAfterSeconds < 1) {
      throw new IllegalArgumentException("retryAfterSeconds must be >= 1. Indicates a bug.");
    }
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** Whole seconds until the window that refused the request ends; always at least 1. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
