package dev.qinglong.app.artifacts;

import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.artifacts.*}: the artifact storage under {@code <data-dir>/artifacts}.
 *
 * @param maxBytes Largest accepted artifact upload in bytes; larger gets 413.
 */
@ConfigurationProperties("qinglong.artifacts")
@Validated
public record ArtifactsProperties(@Min(1) @DefaultValue("268435456") long maxBytes) {}
