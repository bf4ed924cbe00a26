package dev.qinglong.core.ai;

import dev.qinglong.core.kernel.QingLongException;

/**
 * The Project's model quota window has no room for this invocation's worst case (HTTP 429 {@code
 * model_project_quota_exceeded}). Nothing was reserved and the StepRun is still ready.
 */
public final class ModelProjectQuotaExceededException extends QingLongException {
  private final long retryAfterSeconds;

  public ModelProjectQuotaExceededException(long retryAfterSeconds) {
    super("model project quota exceeded");
    if (retryAfterSeconds < 1) {
      throw new IllegalArgumentException("retryAfterSeconds must be >= 1. Indicates a bug.");
    }
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** Whole seconds until the refusing window ends on the database clock; at least 1. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
