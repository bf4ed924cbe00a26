package dev.qinglong.app.downloads;

import dev.qinglong.app.config.QingLongProperties;
import dev.qinglong.app.worker.CompletionWorker;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Readiness of the process's role (DESIGN §6): shows {@code role}, {@code sharedDownloads} (mode,
 * slot, slots, share, lease state) and the completion worker's state; DOWN once the shared-download
 * lease is lost (terminal: the process must be restarted).
 */
@Component("gateway")
public class GatewayHealthIndicator implements HealthIndicator {
  private final QingLongProperties properties;
  private final DownloadServer downloads;
  private final CompletionWorker worker;
  private final GatewaySchema schema;

  public GatewayHealthIndicator(
      QingLongProperties properties,
      DownloadServer downloads,
      CompletionWorker worker,
      GatewaySchema schema) {
    this.properties = properties;
    this.downloads = downloads;
    this.worker = worker;
    this.schema = schema;
  }

  @Override
  public Health health() {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("role", properties.getRole().name().toLowerCase(Locale.ROOT));
    details.put("sharedDownloads", downloads.details());
    details.put("worker", worker.state().name().toLowerCase(Locale.ROOT));
    if (properties.getStore() == QingLongProperties.Store.POSTGRES) {
      details.put("downloadSchemaVersion", schema.appliedVersion());
    }
    return (downloads.halted() ? Health.down() : Health.up()).withDetails(details).build();
  }
}
