package dev.qinglong.app.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Counts the shield's own refusals as {@code qinglong_shield_rejections_total{reason}} (every
 * reason registered up front, so each reads 0 before the first). No client address or user is a
 * tag: that would be one series per attacker.
 */
public final class ShieldMetrics {
  public static final String METER = "qinglong.shield.rejections";

  /** Why the shield answered instead of the route. */
  public enum Reason {
    /** 400: more than one Authorization header. */
    DUPLICATE_AUTHORIZATION,
    /** 413: the declared body is over the cap. */
    BODY_TOO_LARGE,
    /** 429: the client address is at its concurrency bound. */
    CLIENT_CONCURRENCY,
    /** 429: the user is at their concurrency bound. */
    PRINCIPAL_CONCURRENCY,
    /** 503: the server-wide (or download) concurrency budget is exhausted. */
    SERVER_BUSY
  }

  private final Map<Reason, Counter> counters = new EnumMap<>(Reason.class);

  public ShieldMetrics(MeterRegistry registry) {
    for (Reason reason : Reason.values()) {
      counters.put(
          reason,
          Counter.builder(METER)
              .description("Requests the pre-authentication shield refused, by reason")
              .tag("reason", reason.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
  }

  /** Metrics that go nowhere (a filter built without a registry). */
  static ShieldMetrics detached() {
    return new ShieldMetrics(new SimpleMeterRegistry());
  }

  void rejected(Reason reason) {
    counters.get(reason).increment();
  }
}
