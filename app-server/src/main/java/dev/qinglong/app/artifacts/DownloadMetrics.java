package dev.qinglong.app.artifacts;

import dev.qinglong.app.platform.EnumCounters;
import dev.qinglong.gateway.governor.GovernorListener;
import dev.qinglong.gateway.lease.LeaseListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Download and lease metrics (docs/design.md#operations): {@code qinglong_downloads_bytes_total},
 * {@code qinglong_downloads_throttled_seconds{limit}} (count = throttled waits), {@code
 * qinglong_downloads_refused_total{reason}}, {@code
 * qinglong_downloads_lease_renewals_total{outcome}} and {@code
 * qinglong_downloads_lease_losses_total}, {@code qinglong_downloads_slow_readers_total}. Every
 * series is registered up front.
 */
public final class DownloadMetrics implements GovernorListener, LeaseListener {
  private final Counter bytes;
  private final Map<Limit, Timer> throttled = new EnumMap<>(Limit.class);
  private final EnumCounters<Refusal> refused;
  private final Counter renewed;
  private final Counter renewalFailed;
  private final Counter losses;
  private final Counter slowReaders;
  private volatile Runnable onLost = () -> {};

  public DownloadMetrics(MeterRegistry registry) {
    bytes =
        Counter.builder("qinglong.downloads.bytes")
            .description("Artifact payload bytes admitted by the download governor")
            .baseUnit("bytes")
            .register(registry);
    for (Limit limit : Limit.values()) {
      throttled.put(
          limit,
          Timer.builder("qinglong.downloads.throttled")
              .description("Waits of download chunks for the byte-rate limit")
              .tag("limit", limit.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
    refused =
        new EnumCounters<>(
            registry,
            "qinglong.downloads.refused",
            "Download chunks refused (wait bound exceeded, or downloads halted)",
            "reason",
            Refusal.class);
    slowReaders =
        Counter.builder("qinglong.downloads.slow.readers")
            .description(
                "Downloads cut off for reading below qinglong.downloads.min-bytes-per-second")
            .register(registry);
    renewed = renewals(registry, "renewed");
    renewalFailed = renewals(registry, "failed");
    losses =
        Counter.builder("qinglong.downloads.lease.losses")
            .description("Shared-download leases lost (the process must restart)")
            .register(registry);
  }

  private static Counter renewals(MeterRegistry registry, String outcome) {
    return Counter.builder("qinglong.downloads.lease.renewals")
        .description("Shared-download lease renewals")
        .tag("outcome", outcome)
        .register(registry);
  }

  /** A download was cut off for reading too slowly. */
  void slowReader() {
    slowReaders.increment();
  }

  /** What to do when the lease is lost (readiness/liveness), set once the lease exists. */
  void onLost(Runnable action) {
    this.onLost = action;
  }

  /**
   * Payload bytes this process has served since it started ({@code
   * qinglong_downloads_bytes_total}).
   */
  public long bytesServed() {
    return (long) bytes.count();
  }

  @Override
  public void onBytesServed(String principal, long n) {
    bytes.increment(n);
  }

  @Override
  public void onThrottled(Limit limit, long nanos) {
    throttled.get(limit).record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void onRefused(Refusal refusal) {
    refused.increment(refusal);
  }

  @Override
  public void onRenewed(int slot, long generation) {
    renewed.increment();
  }

  @Override
  public void onRenewalFailed(int slot, Exception cause) {
    renewalFailed.increment();
  }

  @Override
  public void onLost(int slot, String reason) {
    losses.increment();
    onLost.run();
  }
}
