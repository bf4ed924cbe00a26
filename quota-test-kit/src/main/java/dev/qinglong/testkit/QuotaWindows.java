package dev.qinglong.testkit;

import static org.awaitility.Awaitility.await;

import dev.qinglong.core.modelquota.QuotaWindow;
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

  /** What a test with exact counts needs of its window: it runs in well under this. */
  public static final Duration FOR_A_TEST = Duration.ofSeconds(20);

  /** {@link #awaitRoom(long, Duration, Callable)} of {@link #FOR_A_TEST} in a {@code window}. */
  public static void awaitRoom(QuotaWindow window, Callable<Long> nowMs) {
    try {
      awaitRoom(window.millis(), FOR_A_TEST, nowMs);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
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
    long left = left(windowMs, nowMs.call());
    if (left >= needed.toMillis()) {
      return;
    }
    // Said on the test's output, so that a pause of up to a minute in a run is explained.
    System.out.printf(
        "QuotaWindows: %d ms left of the %d ms window, %d ms needed: waiting for the next%n",
        left, windowMs, needed.toMillis());
    await("the next quota window")
        .atMost(needed.plus(Duration.ofMinutes(1)))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> left(windowMs, nowMs.call()) >= needed.toMillis());
  }

  private static long left(long windowMs, long nowMs) {
    return windowMs - Math.floorMod(nowMs, windowMs);
  }
}
