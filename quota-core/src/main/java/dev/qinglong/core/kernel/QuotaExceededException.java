package dev.qinglong.core.kernel;

/** A durable quota refused the request. Nothing was mutated. */
public final class QuotaExceededException extends QingLongException {
  private final long retryAfterSeconds;

  public QuotaExceededException(long retryAfterSeconds) {
    super("quota exceeded");
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
