package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;

/**
 * One accounting window of one Project: every reservation and settlement carries it, and it is the
 * unit of serialisation for admission and completion.
 */
public record WindowRef(String projectId, long windowStartMs, long windowMs) {
  public WindowRef {
    Identifiers.require("projectId", projectId);
    QuotaWindow.ofMillis(windowMs);
    if (windowStartMs % windowMs != 0) {
      throw new IllegalStateException("window start is not aligned to its length");
    }
  }

  /** The window of {@code quota} (or the unfenced day window) that contains {@code nowMs}. */
  public static WindowRef containing(String projectId, ProjectQuotaPolicy quota, long nowMs) {
    QuotaWindow window = quota == null ? QuotaWindow.UNFENCED : quota.window();
    return new WindowRef(projectId, window.startOf(nowMs), window.millis());
  }

  public long endMs() {
    return windowStartMs + windowMs;
  }

  /**
   * {@code [projectId, windowStartMs, windowMs]} as canonical JSON: what a store that serialises
   * windows by a lock derives the window's lock key from.
   */
  public String canonicalJson() {
    return CanonicalJson.array(projectId, windowStartMs, windowMs);
  }

  /**
   * Whole seconds from {@code nowMs} to the window's end, rounded up, at least 1 and at most the
   * window: the {@code Retry-After} of a refusal.
   */
  public long secondsUntilEnd(long nowMs) {
    long remaining = Math.min(Math.max(endMs() - nowMs, 0), windowMs);
    return Math.max(1, (remaining + 999) / 1000);
  }
}
