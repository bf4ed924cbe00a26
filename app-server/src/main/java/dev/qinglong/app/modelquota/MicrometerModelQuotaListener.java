package dev.qinglong.app.modelquota;

import dev.qinglong.core.modelquota.ModelQuotaListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Counts model quota events as {@code qinglong_model_quota_events_total{event}} (admitted,
 * admission_replayed, refused, settled, settlement_replayed, conflict, unavailable). Every series
 * is registered up front, so it reads 0 before the first request.
 */
final class MicrometerModelQuotaListener implements ModelQuotaListener {
  static final String METER = "qinglong.model.quota.events";

  private final Map<Event, Counter> counters = new EnumMap<>(Event.class);

  MicrometerModelQuotaListener(MeterRegistry registry) {
    for (Event event : Event.values()) {
      counters.put(
          event,
          Counter.builder(METER)
              .description("Model-invocation quota events (reservations, settlements, refusals)")
              .tag("event", event.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
  }

  @Override
  public void observed(Event event) {
    counters.get(event).increment();
  }
}
