package dev.qinglong.app.http.security;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authentication failures that are not the client's (the IdP is down or hangs, the key set is in
 * its cooldown), logged at most once per kind per interval: one WARN line that says how many of the
 * same kind it stands for, never a stack trace.
 *
 * <p>Hand-written because it is a dozen lines: Logback's {@code DuplicateMessageFilter} drops
 * repeats without counting them and only for the whole logging system, and per-request logging of
 * an anonymous flood is exactly what this must not do (one probe logged 1,093 trace lines for an
 * IdP outage).
 */
final class AuthFailureLog {
  static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
  private static final Logger log = LoggerFactory.getLogger(AuthFailureLog.class);

  private final long intervalNanos;
  private final LongSupplier clock;
  private final ConcurrentMap<String, Window> windows = new ConcurrentHashMap<>();

  AuthFailureLog(Duration interval) {
    this(interval, System::nanoTime);
  }

  AuthFailureLog(Duration interval, LongSupplier nanoClock) {
    this.intervalNanos = interval.toNanos();
    this.clock = nanoClock;
  }

  /**
   * Counts one failure of {@code kind}; logs it (with the count since the last line) if no line of
   * that kind was logged within the interval.
   *
   * @param kind a short, fixed name (never client input)
   * @param detail what the server saw (an exception's class and message; never client input)
   * @return whether a line was logged
   */
  boolean failure(String kind, String detail) {
    Window w = windows.computeIfAbsent(kind, k -> new Window());
    long count;
    synchronized (w) {
      long now = clock.getAsLong();
      w.count++;
      if (w.logged && now - w.lastLogged < intervalNanos) {
        return false;
      }
      count = w.count;
      w.count = 0;
      w.logged = true;
      w.lastLogged = now;
    }
    log.warn(
        "auth.failure kind={} count={} (requests answered 401 since the last line of this kind,"
            + " at most one line per {}s) detail={}",
        kind,
        count,
        intervalNanos / 1_000_000_000L,
        detail);
    return true;
  }

  private static final class Window {
    long count;
    long lastLogged;
    boolean logged;
  }
}
