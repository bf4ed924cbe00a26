package dev.qinglong.app.health;

import dev.qinglong.app.store.QingLongStores;
import dev.qinglong.app.store.SchemaProbe;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Readiness of the store: every pool answers and its Flyway schema is at least the version this
 * build needs. DOWN otherwise; it recovers by itself once the database answers again.
 */
@Component("database")
public class DatabaseHealthIndicator implements HealthIndicator {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private final QingLongStores stores;

  public DatabaseHealthIndicator(QingLongStores stores) {
    this.stores = stores;
  }

  @Override
  public Health health() {
    boolean up = true;
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("store", stores.kind());
    for (SchemaProbe probe : stores.probes()) {
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
