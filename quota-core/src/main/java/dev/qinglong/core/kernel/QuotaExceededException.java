package dev.qinglong.core.kernel;

import java.util.Optional;

/** A durable quota refused the request. Nothing was mutated. */
public final class QuotaExceededException extends QingLongException {
  private final long retryAfterSeconds;
  private final transient RateLimit rateLimit;

  public QuotaExceededException(long retryAfterSeconds) {
    this(retryAfterSeconds, null);
  }

  /** A refusal by {@code rateLimit} (its remaining is 0), or by an unnamed limit if null. */
  public QuotaExceededException(long retryAfterSeconds, RateLimit rateLimit) {
    super("quota exceeded");
    if (retryAfterSeconds < 1) {
      throw new IllegalArgumentException("retryAfterSeconds must be >= 1. Indicates a bug.");
    }
    this.retryAfterSeconds = retryAfterSeconds;
    this.rateLimit = rateLimit;
  }

  /** Whole seconds until the window that refused the request ends; always at least 1. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }

  /** The limit that refused the request, when the refusing quota names one. */
  public Optional<RateLimit> rateLimit() {
    return Optional.ofNullable(rateLimit);
  }
}
