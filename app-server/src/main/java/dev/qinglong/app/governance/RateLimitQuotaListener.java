package dev.qinglong.app.governance;

import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaOperation;
import java.time.Duration;
import java.util.List;

/**
 * Puts every management quota decision of a request into its {@code RateLimit-Policy} and {@code
 * RateLimit} fields (DESIGN §3), and passes each decision on to {@code next} (the metrics).
 *
 * <p>{@code r} is the limit minus the bucket's count as the deciding statement returned it. {@code
 * t}: on a refusal, the refusal's own {@code Retry-After} (database clock); on an admitted request,
 * the window start plus the window minus the database's now, both as the deciding statement
 * returned them, rounded up and kept within 1..window seconds. No clock of this process is read, so
 * a skewed host clock cannot shift the header, and no second statement is needed.
 */
final class RateLimitQuotaListener implements QuotaDecisionListener {
  private final QuotaDecisionListener next;

  RateLimitQuotaListener(QuotaDecisionListener next) {
    this.next = next;
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
    RateLimitHeaders.Limit header = limit(operation, limit, window, decision);
    if (header != null) {
      RateLimitHeaders.addToCurrentResponse(List.of(header));
    }
  }

  /** The header values of one decision; null for a decision that carries none. */
  static RateLimitHeaders.Limit limit(
      QuotaOperation operation, int limit, Duration window, QuotaDecision decision) {
    long windowSeconds = (window.toMillis() + 999) / 1000;
    long windowStart;
    int count;
    long databaseNowMs;
    if (decision instanceof QuotaDecision.Rejected rejected) {
      return new RateLimitHeaders.Limit(
          operation.wireName(), limit, windowSeconds, 0, rejected.retryAfterSeconds(), "requests");
    } else if (decision instanceof QuotaDecision.Allowed allowed) {
      windowStart = allowed.windowStartedAtMs();
      count = allowed.consumedCount();
      databaseNowMs = allowed.databaseNowMs();
    } else if (decision instanceof QuotaDecision.Replayed replayed) {
      windowStart = replayed.windowStartedAtMs();
      count = replayed.consumedCount();
      databaseNowMs = replayed.databaseNowMs();
    } else {
      return null;
    }
    long untilEndMs = windowStart + window.toMillis() - databaseNowMs;
    long reset = Math.min(windowSeconds, Math.max(1, (untilEndMs + 999) / 1000));
    return new RateLimitHeaders.Limit(
        operation.wireName(), limit, windowSeconds, limit - count, reset, "requests");
  }
}
