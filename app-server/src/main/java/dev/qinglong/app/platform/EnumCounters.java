package dev.qinglong.app.platform;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * One counter {@code name{tag}} per constant of an enum, tagged with the constant's name in lower
 * case and registered up front, so every series reads 0 before its first event.
 */
public final class EnumCounters<E extends Enum<E>> {
  private final Map<E, Counter> counters;

  public EnumCounters(
      MeterRegistry registry, String name, String description, String tag, Class<E> type) {
    counters = new EnumMap<>(type);
    for (E constant : type.getEnumConstants()) {
      counters.put(
          constant,
          Counter.builder(name)
              .description(description)
              .tag(tag, constant.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
  }

  public void increment(E constant) {
    counters.get(constant).increment();
  }
}
