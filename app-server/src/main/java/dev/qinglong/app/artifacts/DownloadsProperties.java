package dev.qinglong.app.artifacts;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.downloads.*} (ADR 002): how the read side paces artifact payloads.
 *
 * @param mode standalone (one download server per database) or shared (fixed-share leases).
 * @param rateBytesPerSecond Total payload budget in bytes per second (shared: of all gateways); 0 =
 *     no limit.
 * @param perPrincipalBytesPerSecond Per-principal payload budget in bytes per second (shared: in
 *     total); 0 = no limit.
 * @param slot Shared mode: this process's slot, from 0 to slots - 1.
 * @param slots Shared mode: number of slots (shares), 1..1024.
 */
@ConfigurationProperties("qinglong.downloads")
@Validated
public record DownloadsProperties(
    @NotNull @DefaultValue("standalone") Mode mode,
    @Min(0) @DefaultValue("0") long rateBytesPerSecond,
    @Min(0) @DefaultValue("0") long perPrincipalBytesPerSecond,
    @Min(1) @Max(1024) @DefaultValue("1") int slots,
    @Min(0) @Max(1023) @DefaultValue("0") int slot) {

  /** Download modes of {@code qinglong.downloads.mode} (ADR 002). */
  public enum Mode {
    STANDALONE,
    SHARED
  }

  @AssertTrue(message = "qinglong.downloads.slot must be below qinglong.downloads.slots")
  public boolean isSlotWithinSlots() {
    return slot < slots;
  }
}
