package dev.qinglong.app.governance;

import dev.qinglong.core.quota.QuotaDecisionListener;
import dev.qinglong.core.quota.QuotaOperation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Counts management quota decisions as {@code qinglong_quota_decisions_total{operation,outcome}}.
 * Every (operation, outcome) series is registered up front, so it reads 0 before the first request.
 */
public final class MicrometerQuotaDecisionListener implements QuotaDecisionListener {
  public static final String METER = "qinglong.quota.decisions";

  private final Map<QuotaOperation, Map<Outcome, Counter>> counters =
      new EnumMap<>(QuotaOperation.class);

  public MicrometerQuotaDecisionListener(MeterRegistry registry) {
    for (QuotaOperation operation : QuotaOperation.values()) {
      Map<Outcome, Counter> byOutcome = new EnumMap<>(Outcome.class);
      for (Outcome outcome : Outcome.values()) {
        byOutcome.put(
            outcome,
            Counter.builder(METER)
                .description("Management quota decisions by operation and outcome")
                .tag("operation", operation.wireName())
                .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                .register(registry));
      }
      counters.put(operation, byOutcome);
    }
  }

  @Override
  public void decided(QuotaOperation operation, Outcome outcome) {
    counters.get(operation).get(outcome).increment();
  }
}
