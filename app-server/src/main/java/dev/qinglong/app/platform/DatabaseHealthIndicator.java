package dev.qinglong.app.platform;

import dev.qinglong.jdbc.backend.SchemaProbe;
import dev.qinglong.jdbc.backend.StoreBackend;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Readiness of the store: every pool this process opened answers and each schema it uses is at
 * least the version this build needs. DOWN otherwise; it recovers by itself once the database
 * answers again. The probes run in the background ({@link ReadinessCache}); a readiness call only
 * reads their last result.
 */
@Component("database")
public class DatabaseHealthIndicator implements HealthIndicator {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private final StoreBackend backend;
  private final Supplier<Health> cached;

  public DatabaseHealthIndicator(StoreBackend backend, ReadinessCache cache) {
    this.backend = backend;
    this.cached = cache.register("database", this::probe);
  }

  @Override
  public Health health() {
    return cached.get();
  }

  /** Runs every schema probe (a query per pool): only from the background refresh. */
  Health probe() {
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
