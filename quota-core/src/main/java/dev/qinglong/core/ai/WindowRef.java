package dev.qinglong.core.ai;

import dev.qinglong.core.kernel.Identifiers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

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

  /** {@code [projectId, windowStartMs, windowMs]} as canonical JSON: the input of the lock key. */
  public String canonicalJson() {
    return CanonicalJson.array(projectId, windowStartMs, windowMs);
  }

  /**
   * A stable 64-bit key for this window: the first 8 bytes (big-endian, signed) of SHA-256 over
   * {@link #canonicalJson()}. Two windows that collide merely share a lock, which serialises more
   * than needed but never lets two admissions of one window run at once.
   */
  public long lockKey() {
    return lockKeyOf(canonicalJson());
  }

  static long lockKeyOf(String canonical) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(hash, 0, 8).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
    }
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
