package dev.qinglong.app.modelquota;

import dev.qinglong.app.http.RateLimitHeaders;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.WindowUsage;
import dev.qinglong.core.modelquota.WindowUsageReading;
import java.util.ArrayList;
import java.util.List;

/**
 * The model quota's rate-limit header values: one policy per limited dimension of the Project's
 * window ({@code invocations}, {@code tokens}, {@code cost-micros}), what is left of each (usage
 * counts settled amounts where settled, reserved otherwise) and the seconds to the window's end,
 * all on the database clock, as the admission decided them (no read of its own). A Project without
 * a quota policy has no limits to show, nor has an answer whose window is unknown.
 */
final class ModelRateLimits {
  private ModelRateLimits() {}

  static List<RateLimitHeaders.Limit> of(WindowUsageReading reading) {
    ProjectQuotaPolicy quota = reading == null ? null : reading.quota();
    if (quota == null) {
      return List.of();
    }
    WindowUsage usage = reading.usage();
    long windowSeconds = usage.window().windowMs() / 1000;
    long reset = usage.window().secondsUntilEnd(reading.databaseNowMs());
    List<RateLimitHeaders.Limit> limits = new ArrayList<>();
    limits.add(
        new RateLimitHeaders.Limit(
            "invocations",
            quota.maxInvocations(),
            windowSeconds,
            quota.maxInvocations() - usage.invocations(),
            reset,
            "requests"));
    limits.add(
        new RateLimitHeaders.Limit(
            "tokens",
            quota.maxTokens(),
            windowSeconds,
            quota.maxTokens() - usage.tokens(),
            reset,
            null));
    if (quota.maxCostMicros() != null) {
      limits.add(
          new RateLimitHeaders.Limit(
              "cost-micros",
              quota.maxCostMicros(),
              windowSeconds,
              quota.maxCostMicros() - usage.costMicros(),
              reset,
              null));
    }
    return limits;
  }
}
