package dev.qinglong.app.governance;

import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaOperation;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Puts every management quota decision of a request into its {@code RateLimit-Policy} and {@code
 * RateLimit} fields (DESIGN §3), and passes each decision on to {@code next} (the metrics).
 *
 * <p>{@code r} is the limit minus the bucket's count as the deciding statement returned it. {@code
 * t}: on a refusal, the refusal's own {@code Retry-After} (database clock); on an admitted request,
 * the window start the statement returned (database clock) plus the window, minus this process's
 * clock, kept within 1..window seconds — the statement does not return the database's now, and a
 * second read only for a header would double the hot path's round trips.
 */
final class RateLimitQuotaListener implements QuotaDecisionListener {
  private final QuotaDecisionListener next;
  private final Clock clock;

  RateLimitQuotaListener(QuotaDecisionListener next, Clock clock) {
    this.next = next;
    this.clock = clock;
  }

  @Override
  public void decided(QuotaOperation operation, Outcome outcome) {
    next.decided(operation, outcome);
  }

  @Override
  public void decided(QuotaOperation operation, Outcome outcome, long elapsedNanos) {
    next.decided(operation, outcome, elapsedNanos);
  }

  @Override
  public void limited(
      QuotaOperation operation, int limit, Duration window, QuotaDecision decision) {
    next.limited(operation, limit, window, decision);
    RateLimitHeaders.Limit header = limit(operation, limit, window, decision, clock.millis());
    if (header != null) {
      RateLimitHeaders.addToCurrentResponse(List.of(header));
    }
  }

  /** The header values of one decision; null for a decision that carries none. */
  static RateLimitHeaders.Limit limit(
      QuotaOperation operation, int limit, Duration window, QuotaDecision decision, long nowMs) {
    long windowSeconds = (window.toMillis() + 999) / 1000;
    long windowStart;
    int count;
    if (decision instanceof QuotaDecision.Rejected rejected) {
      return new RateLimitHeaders.Limit(
          operation.wireName(), limit, windowSeconds, 0, rejected.retryAfterSeconds(), "requests");
    } else if (decision instanceof QuotaDecision.Allowed allowed) {
      windowStart = allowed.windowStartedAtMs();
      count = allowed.consumedCount();
    } else if (decision instanceof QuotaDecision.Replayed replayed) {
      windowStart = replayed.windowStartedAtMs();
      count = replayed.consumedCount();
    } else {
      return null;
    }
    long untilEndMs = windowStart + window.toMillis() - nowMs;
    long reset = Math.min(windowSeconds, Math.max(1, (untilEndMs + 999) / 1000));
    return new RateLimitHeaders.Limit(
        operation.wireName(), limit, windowSeconds, limit - count, reset, "requests");
  }
}
