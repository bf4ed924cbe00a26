package dev.qinglong.app.platform;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.readiness.*}: the background probe readiness is computed from ({@link
 * ReadinessCache}).
 *
 * @param refreshInterval How often the schema, pool and download probes run (100 ms … 1 min);
 *     readiness reflects a change within about this interval.
 */
@ConfigurationProperties("qinglong.readiness")
@Validated
public record ReadinessProperties(@NotNull @DefaultValue("2s") Duration refreshInterval) {

  @AssertTrue(message = "qinglong.readiness.refresh-interval must be between 100ms and 1m")
  public boolean isRefreshIntervalInRange() {
    return refreshInterval == null
        || (refreshInterval.compareTo(Duration.ofMillis(100)) >= 0
            && refreshInterval.compareTo(Duration.ofMinutes(1)) <= 0);
  }
}
