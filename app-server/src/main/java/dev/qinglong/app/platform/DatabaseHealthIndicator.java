package dev.qinglong.app.platform;

import dev.qinglong.jdbc.backend.SchemaProbe;
import dev.qinglong.jdbc.backend.StoreBackend;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Readiness of the store: every pool this process opened answers and each schema it uses is at
 * least the version this build needs. DOWN otherwise; it recovers by itself once the database
 * answers again.
 */
@Component("database")
public class DatabaseHealthIndicator implements HealthIndicator {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private final StoreBackend backend;

  public DatabaseHealthIndicator(StoreBackend backend) {
    this.backend = backend;
  }

  @Override
  public Health health() {
    boolean up = true;
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("store", backend.kind());
    for (SchemaProbe probe : backend.probes()) {
      SchemaProbe.Result result = probe.check(TIMEOUT);
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("status", result.up() ? "UP" : "DOWN");
      d.put("schemaVersion", result.schemaVersion());
      d.put("requiredSchemaVersion", result.requiredVersion());
      if (result.problem() != null) {
        d.put("problem", result.problem());
      }
      details.put(result.name(), d);
      up &= result.up();
    }
    return (up ? Health.up() : Health.down()).withDetails(details).build();
  }
}
