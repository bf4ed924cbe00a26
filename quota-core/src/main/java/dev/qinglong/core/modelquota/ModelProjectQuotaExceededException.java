package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.QingLongException;

/**
 * The Project's model quota window has no room for this invocation's worst case (HTTP 429 {@code
 * model_project_quota_exceeded}). Nothing was reserved and the StepRun is still ready.
 */
public final class ModelProjectQuotaExceededException extends QingLongException {
  private final long retryAfterSeconds;
  private final transient WindowUsageReading window;

  public ModelProjectQuotaExceededException(long retryAfterSeconds) {
    this(retryAfterSeconds, null);
  }

  /**
   * @param window the refusing window as read by the decision (its rate-limit data), or {@code
   *     null}
   */
  public ModelProjectQuotaExceededException(long retryAfterSeconds, WindowUsageReading window) {
    super("model project quota exceeded");
    if (retryAfterSeconds < 1) {
      throw new IllegalArgumentException("retryAfterSeconds must be >= 1. Indicates a bug.");
    }
    this.retryAfterSeconds = retryAfterSeconds;
    this.window = window;
  }

  /** The refusing window as the decision read it, or {@code null}. */
  public WindowUsageReading window() {
    return window;
  }

  /** Whole seconds until the refusing window ends on the database clock; at least 1. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
