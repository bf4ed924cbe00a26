package dev.qinglong.app.platform;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.ai.*}: the switch of the optional model-invocation quota feature
 * (docs/design.md#model-invocation-quota) and its pool. It lives in the platform because the
 * platform is what reads it: the switch decides which store parts and migrations the backend opens
 * and applies, the pool size is one of the PostgreSQL pools. The feature itself ({@code
 * modelquota}) is loaded by the same switch via {@code @ConditionalOnProperty} and reads nothing
 * else.
 *
 * @param enabled Load the feature: apply its migrations, wire its store and serve its routes.
 *     Disabled (the default) none of it exists and its routes answer 404.
 * @param runtimePoolSize PostgreSQL: connections of the runtime pool (logs in as ql3_runtime).
 * @param recoverUnknownAfter A StepRun {@code running} this long (database clock) is recovered as
 *     {@code unknown} by the process's recovery sweep, keeping its whole reservation; 0 = no sweep.
 * @param recoverUnknownInterval How often the sweep runs.
 */
@ConfigurationProperties("qinglong.ai")
@Validated
public record ModelQuotaProperties(
    @DefaultValue("false") boolean enabled,
    @Min(1) @Max(64) @DefaultValue("2") int runtimePoolSize,
    @DefaultValue("15m") Duration recoverUnknownAfter,
    @DefaultValue("1m") Duration recoverUnknownInterval) {
  public ModelQuotaProperties {
    if (recoverUnknownAfter == null || recoverUnknownAfter.isNegative()) {
      throw new IllegalArgumentException("qinglong.ai.recover-unknown-after must be >= 0");
    }
    if (recoverUnknownInterval == null
        || recoverUnknownInterval.isNegative()
        || recoverUnknownInterval.isZero()) {
      throw new IllegalArgumentException("qinglong.ai.recover-unknown-interval must be > 0");
    }
  }
}
