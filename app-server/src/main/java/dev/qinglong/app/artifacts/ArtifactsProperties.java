package dev.qinglong.app.artifacts;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.artifacts.*}: the artifact storage under {@code <data-dir>/artifacts}.
 *
 * @param maxBytes Largest accepted artifact upload in bytes; larger gets 413.
 * @param unreferencedGrace How long an artifact that no proposal names is kept after its last
 *     upload before the publication worker deletes it; at least 1m.
 * @param cleanupInterval How often the active publication worker deletes unreferenced artifacts
 *     older than the grace period; 0 turns the clean-up off.
 */
@ConfigurationProperties("qinglong.artifacts")
@Validated
public record ArtifactsProperties(
    @Min(1) @DefaultValue("268435456") long maxBytes,
    @NotNull @DefaultValue("24h") Duration unreferencedGrace,
    @NotNull @DefaultValue("1h") Duration cleanupInterval) {

  @AssertTrue(message = "qinglong.artifacts.unreferenced-grace must be at least 1m")
  public boolean isGraceLongEnough() {
    return unreferencedGrace != null && unreferencedGrace.compareTo(Duration.ofMinutes(1)) >= 0;
  }

  @AssertTrue(message = "qinglong.artifacts.cleanup-interval must be 0 (off) or at least 1m")
  public boolean isIntervalOffOrLongEnough() {
    return cleanupInterval != null
        && (cleanupInterval.isZero() || cleanupInterval.compareTo(Duration.ofMinutes(1)) >= 0);
  }
}
