package dev.qinglong.app.governance;

import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaOperation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Counts management quota decisions as {@code qinglong_quota_decisions_total{operation,outcome}}
 * and times them as {@code qinglong_quota_decision_duration_seconds{operation,outcome}} (the
 * store's decision, i.e. the one SQL statement with its connection wait). Every series is
 * registered up front, so it reads 0 before the first request. No Project or user is ever a tag:
 * that would be one series per tenant.
 */
public final class MicrometerQuotaDecisionListener implements QuotaDecisionListener {
  public static final String METER = "qinglong.quota.decisions";
  public static final String TIMER = "qinglong.quota.decision.duration";
  private static final Duration[] SLOS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofSeconds(1),
    Duration.ofSeconds(3)
  };

  private final Map<QuotaOperation, Map<Outcome, Counter>> counters =
      new EnumMap<>(QuotaOperation.class);
  private final Map<QuotaOperation, Map<Outcome, Timer>> timers =
      new EnumMap<>(QuotaOperation.class);

  public MicrometerQuotaDecisionListener(MeterRegistry registry) {
    for (QuotaOperation operation : QuotaOperation.values()) {
      Map<Outcome, Counter> byOutcome = new EnumMap<>(Outcome.class);
      Map<Outcome, Timer> timedByOutcome = new EnumMap<>(Outcome.class);
      for (Outcome outcome : Outcome.values()) {
        Tags tags =
            Tags.of(
                "operation",
                operation.wireName(),
                "outcome",
                outcome.name().toLowerCase(Locale.ROOT));
        // A few fixed buckets (for histogram_quantile), not the full percentile histogram times 30
        // series.
        timedByOutcome.put(
            outcome,
            Timer.builder(TIMER)
                .description("Time the store took to decide a management quota request")
                .tags(tags)
                .serviceLevelObjectives(SLOS)
                .register(registry));
        byOutcome.put(
            outcome,
            Counter.builder(METER)
                .description("Management quota decisions by operation and outcome")
                .tags(tags)
                .register(registry));
      }
      counters.put(operation, byOutcome);
      timers.put(operation, timedByOutcome);
    }
  }

  @Override
  public void decided(QuotaOperation operation, Outcome outcome) {
    counters.get(operation).get(outcome).increment();
  }

  @Override
  public void decided(QuotaOperation operation, Outcome outcome, long elapsedNanos) {
    decided(operation, outcome);
    timers.get(operation).get(outcome).record(elapsedNanos, TimeUnit.NANOSECONDS);
  }
}
