package dev.qinglong.core.kernel;

import java.util.Optional;

/** A durable quota refused the request. Nothing was mutated. */
public final class QuotaExceededException extends QuotaRefusedException {
  private final transient RateLimit rateLimit;

  /** A refusal by {@code rateLimit} (its remaining is 0), or by an unnamed limit if null. */
  public QuotaExceededException(long retryAfterSeconds, RateLimit rateLimit) {
    super("quota exceeded", retryAfterSeconds);
    this.rateLimit = rateLimit;
  }

  /** The limit that refused the request, when the refusing quota names one. */
  public Optional<RateLimit> rateLimit() {
    return Optional.ofNullable(rateLimit);
  }
}
