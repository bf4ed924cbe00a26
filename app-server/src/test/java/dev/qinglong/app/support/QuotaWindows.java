package dev.qinglong.app.support;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Keeps a test's exact quota counts inside one window. A model quota window is fixed and aligned to
 * the epoch on the database clock (a 1h window ends on the hour), so a test that counts admissions
 * and refusals and happens to run across the end of its window sees the count start again: a
 * refusal it replays is then rightly admitted. Such a test first calls {@link #awaitRoom}: when
 * less than it needs is left of the current window, it waits for the next one to begin.
 */
public final class QuotaWindows {
  private QuotaWindows() {}

  /** The milliseconds of a window's wire name ({@code 1m}, {@code 1h}, {@code 1d}). */
  public static long millis(String window) {
    return switch (window) {
      case "1m" -> 60_000L;
      case "1h" -> 3_600_000L;
      case "1d" -> 86_400_000L;
      default -> throw new IllegalArgumentException("no such window: " + window);
    };
  }

  /**
   * Returns once at least {@code needed} is left of the current {@code windowMs} window on the
   * clock {@code nowMs} (the database's, or the machine's when the database runs on it); waits for
   * the next window to begin when less is left. Waited on the clock itself, at most once per
   * window.
   */
  public static void awaitRoom(long windowMs, Duration needed, Callable<Long> nowMs)
      throws Exception {
    if (needed.toMillis() >= windowMs) {
      throw new IllegalArgumentException("a window of " + windowMs + " ms never has " + needed);
    }
    if (left(windowMs, nowMs.call()) >= needed.toMillis()) {
      return;
    }
    await("the next quota window")
        .atMost(needed.plus(Duration.ofMinutes(1)))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> left(windowMs, nowMs.call()) >= needed.toMillis());
  }

  /** As {@link #awaitRoom(long, Duration, Callable)} on this machine's clock. */
  public static void awaitRoom(long windowMs, Duration needed) throws Exception {
    awaitRoom(windowMs, needed, System::currentTimeMillis);
  }

  private static long left(long windowMs, long nowMs) {
    return windowMs - Math.floorMod(nowMs, windowMs);
  }
}
