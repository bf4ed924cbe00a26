package dev.qinglong.core.quota;

/**
 * A user whose current window went past a shadow limit: {@code consumedCount - shadowLimit} of its
 * admitted requests would have been refused had the shadow limit been enforced.
 *
 * @param windowStartedAtMs the window's start on the database clock
 */
public record ShadowRefusal(
    String userId,
    QuotaOperation operation,
    int consumedCount,
    int shadowLimit,
    long windowStartedAtMs) {
  /** How many of the window's admitted requests the shadow limit would have refused. */
  public int wouldHaveRefused() {
    return Math.max(0, consumedCount - shadowLimit);
  }
}
