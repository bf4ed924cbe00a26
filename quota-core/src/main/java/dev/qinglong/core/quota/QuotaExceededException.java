package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.QuotaRefusedException;
import dev.qinglong.core.kernel.RateLimit;
import java.util.Objects;

/**
 * The management quota refused the request (HTTP 429 {@code quota_exceeded}). Nothing was mutated.
 * The refusal names its bucket and window, so the edge can audit a window's refusals once without
 * any channel beside the exception.
 */
public final class QuotaExceededException extends QuotaRefusedException {
  private final transient RateLimit rateLimit;
  private final transient QuotaKey bucket;
  private final long windowStartedAtMs;

  /**
   * @param rateLimit the refusing limit (its remaining is 0)
   * @param bucket the bucket that is full
   * @param windowStartedAtMs the start of its full window, on the database clock
   */
  public QuotaExceededException(
      long retryAfterSeconds, RateLimit rateLimit, QuotaKey bucket, long windowStartedAtMs) {
    super("quota exceeded", retryAfterSeconds);
    this.rateLimit = Objects.requireNonNull(rateLimit, "rateLimit");
    this.bucket = Objects.requireNonNull(bucket, "bucket");
    this.windowStartedAtMs = windowStartedAtMs;
  }

  /** The limit that refused the request. */
  public RateLimit rateLimit() {
    return rateLimit;
  }

  /** The bucket (Project, user, operation) whose window is full. */
  public QuotaKey bucket() {
    return bucket;
  }

  /** The start of the full window (database clock). */
  public long windowStartedAtMs() {
    return windowStartedAtMs;
  }
}
