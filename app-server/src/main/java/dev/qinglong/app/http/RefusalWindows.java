package dev.qinglong.app.http;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Scheduler;
import dev.qinglong.core.quota.QuotaKey;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Which refusal of its window a refusal is, per management quota bucket (Project, user, operation):
 * the one memory that both the refusal's audit line and its webhook event deduplicate with. Each
 * bucket has one entry: the start of the window of its latest refusal and how many refusals that
 * window has had here. {@link #refused} of a window already remembered is a read of the cache and
 * one counter increment (no lock, so many threads refusing one bucket do not queue); only the first
 * refusal of a window updates the cache, atomically per bucket. Never a scan of the entries.
 *
 * <p>A window ends for this memory when a refusal of a later window arrives for the bucket; or
 * {@code margin} after the window is over by this process's clock, or {@code margin} after this
 * process first saw it, whichever is later (so a clock that runs ahead of the store's cannot end a
 * window at once); or when the memory is full. It is a bounded Caffeine cache: beyond {@code
 * capacity} buckets it evicts one (the one least likely to be refused again), whose window then
 * ends early; a later refusal of that bucket in the same window starts a new count (it is a first
 * refusal again). Nothing ever blocks, and a first refusal is always reported as first. Each ended
 * window goes to {@code ended} once, from the thread that ended it; when {@code prompt} the cache's
 * scheduler ends expired windows without a refusal arriving (otherwise {@link #endExpired()} does,
 * e.g. in a test with a fake clock).
 */
public final class RefusalWindows {

  /** One ended window: the bucket, its start (the store's clock) and its refusals here. */
  public record Ended(QuotaKey bucket, long windowStartedAtMs, long refusals) {}

  private static final class Window {
    final long startedAtMs;
    final long keepUntilMs;
    final LongAdder refusals = new LongAdder();

    Window(long startedAtMs, long keepUntilMs) {
      this.startedAtMs = startedAtMs;
      this.keepUntilMs = keepUntilMs;
      refusals.increment();
    }

    /**
     * Its report; a refusal counted by a thread that read the window just before it ended may be
     * missing from it (the window ended at the same moment).
     */
    Ended ended(QuotaKey bucket) {
      return new Ended(bucket, startedAtMs, refusals.sum());
    }
  }

  private final Cache<QuotaKey, Window> windows;
  private final Consumer<Ended> ended;
  private final long windowMs;
  private final long marginMs;
  private final Clock clock;

  /**
   * @param capacity buckets remembered at most
   * @param window the quota's window
   * @param margin how long after its end a window is still remembered, for clock differences
   *     between this process and the store
   * @param ended hears every ended window; must not throw
   * @param prompt whether expired windows end on a timer, without a refusal or {@link
   *     #endExpired()}
   */
  public RefusalWindows(
      int capacity,
      Duration window,
      Duration margin,
      Clock clock,
      boolean prompt,
      Consumer<Ended> ended) {
    this.windowMs = window.toMillis();
    this.marginMs = margin.toMillis();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.ended = Objects.requireNonNull(ended, "ended");
    Caffeine<Object, Object> builder =
        Caffeine.newBuilder()
            .maximumSize(capacity)
            // Maintenance (evictions and their report) on the thread that caused it: no pool.
            .executor(Runnable::run)
            .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()));
    if (prompt) {
      builder.scheduler(Scheduler.systemScheduler());
    }
    this.windows =
        builder
            .expireAfter(
                new Expiry<QuotaKey, Window>() {
                  @Override
                  public long expireAfterCreate(QuotaKey k, Window w, long now) {
                    return untilKept(w);
                  }

                  @Override
                  public long expireAfterUpdate(QuotaKey k, Window w, long now, long current) {
                    return untilKept(w);
                  }

                  @Override
                  public long expireAfterRead(QuotaKey k, Window w, long now, long current) {
                    return current;
                  }
                })
            // Evicted (expired or over capacity): synchronous with the eviction, so reported once.
            .<QuotaKey, Window>evictionListener(
                (k, w, cause) -> {
                  if (k != null && w != null && cause.wasEvicted()) {
                    ended.accept(w.ended(k));
                  }
                })
            .build();
  }

  private long untilKept(Window w) {
    return TimeUnit.MILLISECONDS.toNanos(Math.max(0, w.keepUntilMs - clock.millis()));
  }

  /**
   * Counts one refusal of {@code bucket} in the window that started at {@code windowStartedAtMs}. A
   * refusal of an earlier window than the remembered one (a late thread) counts with the remembered
   * window.
   *
   * @return whether it is the first refusal of the window here (exactly one is, however many
   *     threads refuse the bucket at once)
   */
  public boolean refused(QuotaKey bucket, long windowStartedAtMs) {
    Window remembered = windows.getIfPresent(bucket);
    if (remembered != null && remembered.startedAtMs >= windowStartedAtMs) {
      remembered.refusals.increment();
      return false;
    }
    boolean[] first = {false};
    Window[] replaced = {null};
    windows
        .asMap()
        .compute(
            bucket,
            (k, w) -> {
              if (w == null || w.startedAtMs < windowStartedAtMs) {
                replaced[0] = w;
                first[0] = true;
                return new Window(
                    windowStartedAtMs,
                    Math.max(windowStartedAtMs + windowMs, clock.millis()) + marginMs);
              }
              w.refusals.increment(); // another thread started this window first
              return w;
            });
    if (replaced[0] != null) {
      ended.accept(replaced[0].ended(bucket));
    }
    return first[0];
  }

  /**
   * Forgets the bucket's window if it is still the remembered one, without reporting it: its next
   * refusal in that window is a first one again (e.g. after its webhook write failed).
   */
  public void forget(QuotaKey bucket, long windowStartedAtMs) {
    windows
        .asMap()
        .computeIfPresent(bucket, (k, w) -> w.startedAtMs == windowStartedAtMs ? null : w);
  }

  /** Ends (and reports) every window kept for its full time by now. */
  public void endExpired() {
    windows.cleanUp();
  }

  /** Ends (and reports) every remembered window, e.g. at shutdown. */
  public void endAll() {
    for (var e : windows.asMap().entrySet()) {
      if (windows.asMap().remove(e.getKey(), e.getValue())) {
        ended.accept(e.getValue().ended(e.getKey()));
      }
    }
  }

  /** Buckets remembered now (approximately, for tests and metrics). */
  public long size() {
    windows.cleanUp();
    return windows.estimatedSize();
  }
}
