package dev.qinglong.app.http;

import dev.qinglong.core.quota.QuotaKey;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Audits management quota refusals at most once per bucket (Project, user, operation) and window.
 * {@link ApiExceptionHandler} asks it about each refusal it answers, from the bucket and window the
 * refusal names ({@link dev.qinglong.core.quota.QuotaExceededException}): the first refusal of a
 * window is logged at once, as the request's {@code quota.rejected} line; each later one of the
 * same window writes no line of its own and is counted ({@code
 * qinglong_quota_refusals_audit_suppressed_total}). When the window ends, one more {@code
 * quota.rejected} line reports it: {@code quota=management}, the Project, the user, the {@code
 * operation}, {@code windowStart} (ISO instant, the store's clock), {@code refusals} (the window's
 * refusals counted here, the first included) and {@code suppressed} (those not logged, {@code
 * refusals - 1}); a window with a single refusal needs no such line. A window ends when a refusal
 * of a later window arrives for its bucket, a minute after it is over (by a timer, no refusal
 * needed), when this memory of at most {@value #MAX_BUCKETS} buckets is full and evicts it, or at
 * shutdown.
 */
public final class RefusalAudit implements AutoCloseable {

  /** Buckets remembered at most. */
  static final int MAX_BUCKETS = 10_000;

  /** How long after its end a window is still remembered (clock differences with the store). */
  static final Duration MARGIN = Duration.ofMinutes(1);

  private final RefusalWindows windows;
  private final Counter suppressed;

  /**
   * @param window the management quota's window
   * @param prompt whether ended windows are reported on a timer (false: only by {@link
   *     #endExpired()}, a later refusal or {@link #close()})
   */
  public RefusalAudit(
      Duration window, Clock clock, boolean prompt, MeterRegistry registry, int capacity) {
    this.windows = new RefusalWindows(capacity, window, MARGIN, clock, prompt, this::ended);
    this.suppressed =
        Counter.builder("qinglong.quota.refusals.audit.suppressed")
            .description(
                "Management quota refusals not audited individually (counted in their window's"
                    + " quota.rejected line)")
            .register(registry);
  }

  public RefusalAudit(Duration window, MeterRegistry registry) {
    this(window, Clock.systemUTC(), true, registry, MAX_BUCKETS);
  }

  /** Counts the refusal; true if it is its bucket's first of the window (its line is written). */
  public boolean first(QuotaKey key, long windowStartedAtMs) {
    if (windows.refused(key, windowStartedAtMs)) {
      return true;
    }
    suppressed.increment();
    return false;
  }

  private void ended(RefusalWindows.Ended ended) {
    if (ended.refusals() < 2) {
      return;
    }
    QuotaKey bucket = ended.bucket();
    AuditLog.event("quota.rejected")
        .with("quota", "management")
        .with("projectId", bucket.projectId())
        .with("userId", bucket.subjectId())
        .with("operation", bucket.operation().wireName())
        .with("windowStart", Instant.ofEpochMilli(ended.windowStartedAtMs()))
        .with("refusals", ended.refusals())
        .with("suppressed", ended.refusals() - 1)
        .log();
  }

  /** Reports the windows that are over by now (the timer does the same). */
  void endExpired() {
    windows.endExpired();
  }

  /** Reports every window still open: nothing counted is lost at shutdown. */
  @Override
  public void close() {
    windows.endAll();
  }
}
