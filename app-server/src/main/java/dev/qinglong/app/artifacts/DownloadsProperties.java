package dev.qinglong.app.artifacts;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.downloads.*}: how the read side paces artifact payloads
 * (docs/design.md#standalone-and-shared-downloads).
 *
 * @param mode standalone (one download server per database) or shared (fixed-share leases).
 * @param rateBytesPerSecond Total payload budget in bytes per second (shared: of all gateways); 0 =
 *     no limit.
 * @param perPrincipalBytesPerSecond Per-principal payload budget in bytes per second (shared: in
 *     total); 0 = no limit.
 * @param slot Shared mode: this process's slot, from 0 to slots - 1.
 * @param slots Shared mode: number of slots (shares), 1..1024.
 * @param maxConcurrent Downloads (GET/HEAD of an artifact) in flight per process, counted apart
 *     from {@code qinglong.shield.max-concurrent-requests} so slow downloads never take the API's
 *     slots; excess gets 503 with {@code Retry-After: 1} before authentication.
 * @param minBytesPerSecond Slowest accepted reader, in bytes per second of time spent waiting for
 *     the client (time the rate limits hold a chunk back does not count); a download below it over
 *     {@code min-rate-window} is cut off. 0 = no minimum.
 * @param minRateWindow How long a reader may lag before the minimum rate is checked, and the window
 *     it is averaged over (1 s … 5 min).
 * @param socketWriteBufferBytes In the roles that serve downloads: Tomcat's per-connection socket
 *     write buffer ({@code socket.appWriteBufSize}, Tomcat's default 8 KiB), through which every
 *     blocking response write is copied and sent, one system call per buffer. 64 KiB lets an
 *     unthrottled download keep up with a plain file copy; it is held by every open connection of
 *     the process (API ones too), so it costs 56 KiB more heap per connection (4 KiB … 1 MiB).
 */
@ConfigurationProperties("qinglong.downloads")
@Validated
public record DownloadsProperties(
    @NotNull @DefaultValue("standalone") Mode mode,
    @Min(0) @DefaultValue("0") long rateBytesPerSecond,
    @Min(0) @DefaultValue("0") long perPrincipalBytesPerSecond,
    @Min(1) @Max(1024) @DefaultValue("1") int slots,
    @Min(0) @Max(1023) @DefaultValue("0") int slot,
    @Min(1) @Max(100_000) @DefaultValue("32") int maxConcurrent,
    @Min(0) @DefaultValue("16384") long minBytesPerSecond,
    @NotNull @DefaultValue("10s") Duration minRateWindow,
    @Min(4096) @Max(1_048_576) @DefaultValue("65536") int socketWriteBufferBytes) {

  /** Download modes of {@code qinglong.downloads.mode}; the two never mix. */
  public enum Mode {
    STANDALONE,
    SHARED
  }

  @AssertTrue(message = "qinglong.downloads.min-rate-window must be between 1s and 5m")
  public boolean isMinRateWindowInRange() {
    return minRateWindow == null
        || (minRateWindow.compareTo(Duration.ofSeconds(1)) >= 0
            && minRateWindow.compareTo(Duration.ofMinutes(5)) <= 0);
  }

  @AssertTrue(message = "qinglong.downloads.slot must be below qinglong.downloads.slots")
  public boolean isSlotWithinSlots() {
    return slot < slots;
  }
}
