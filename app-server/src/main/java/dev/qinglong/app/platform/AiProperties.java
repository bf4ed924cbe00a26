package dev.qinglong.app.platform;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.ai.*}: the switch of the optional model-invocation quota feature (ADR 001, DESIGN
 * §5) and its pool. It lives in the platform because the platform is what reads it: the switch
 * decides which store parts and migrations the backend opens and applies, the pool size is one of
 * the PostgreSQL pools. The feature itself ({@code modelquota}) is loaded by the same switch via
 * {@code @ConditionalOnProperty} and reads nothing else.
 *
 * @param enabled Load the feature: apply its migrations, wire its store and serve its routes.
 *     Disabled (the default) none of it exists and its routes answer 404.
 * @param runtimePoolSize PostgreSQL: connections of the runtime pool (logs in as ql3_runtime).
 */
@ConfigurationProperties("qinglong.ai")
@Validated
public record AiProperties(
    @DefaultValue("false") boolean enabled,
    @Min(1) @Max(64) @DefaultValue("2") int runtimePoolSize) {}
