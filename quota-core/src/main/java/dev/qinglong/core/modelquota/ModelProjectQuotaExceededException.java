package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.QuotaRefusedException;

/**
 * The Project's model quota window has no room for this invocation's worst case (HTTP 429 {@code
 * model_project_quota_exceeded}). Nothing was reserved and the StepRun is still ready. {@link
 * #retryAfterSeconds} counts on the database clock.
 */
public final class ModelProjectQuotaExceededException extends QuotaRefusedException {
  private final transient WindowUsageReading window;

  /**
   * @param window the refusing window as read by the decision (its rate-limit data), or {@code
   *     null}
   */
  public ModelProjectQuotaExceededException(long retryAfterSeconds, WindowUsageReading window) {
    super("model project quota exceeded", retryAfterSeconds);
    this.window = window;
  }

  /** The refusing window as the decision read it, or {@code null}. */
  public WindowUsageReading window() {
    return window;
  }
}
