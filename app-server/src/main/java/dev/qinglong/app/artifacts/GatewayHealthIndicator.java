package dev.qinglong.app.artifacts;

import dev.qinglong.app.platform.PlatformProperties;
import dev.qinglong.app.platform.ReadinessCache;
import dev.qinglong.gateway.worker.WorkerState;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Readiness of the process's role (docs/design.md#process-roles): shows {@code role}, {@code
 * sharedDownloads} (mode, slot, slots, share, lease state) and the publication worker's state; DOWN
 * once the shared-download lease is lost (terminal: the process must be restarted). Computed in the
 * background ({@link ReadinessCache}): the standalone barrier's state is a query on its session.
 */
@Component("gateway")
public class GatewayHealthIndicator implements HealthIndicator {
  private final PlatformProperties platform;
  private final DownloadsProperties downloadsProperties;
  private final ObjectProvider<DownloadSide> downloads;
  private final ObjectProvider<PublicationWorker> worker;
  private final Supplier<Health> cached;

  public GatewayHealthIndicator(
      PlatformProperties platform,
      DownloadsProperties downloadsProperties,
      ObjectProvider<DownloadSide> downloads,
      ObjectProvider<PublicationWorker> worker,
      ReadinessCache cache) {
    this.platform = platform;
    this.downloadsProperties = downloadsProperties;
    this.downloads = downloads;
    this.worker = worker;
    this.cached = cache.register("gateway", this::probe);
  }

  @Override
  public Health health() {
    return cached.get();
  }

  /** The role, download coordination and worker state: only from the background refresh. */
  Health probe() {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("role", platform.role().name().toLowerCase(Locale.ROOT));
    DownloadSide side = downloads.getIfAvailable();
    if (side != null) {
      details.put("sharedDownloads", side.details());
    } else {
      Map<String, Object> none = new LinkedHashMap<>();
      none.put("mode", downloadsProperties.mode().name().toLowerCase(Locale.ROOT));
      none.put("serves", false);
      details.put("sharedDownloads", none);
    }
    PublicationWorker w = worker.getIfAvailable();
    WorkerState state = w == null ? WorkerState.STOPPED : w.state();
    details.put("worker", state.name().toLowerCase(Locale.ROOT));
    boolean halted = side != null && side.halted();
    return (halted ? Health.down() : Health.up()).withDetails(details).build();
  }
}
