package dev.qinglong.app.ai;

import dev.qinglong.core.ai.ModelQuotaStore;
import java.util.List;

/**
 * The model-invocation quota store of the selected backend, built only when {@code
 * qinglong.ai.enabled=true}. Closing it closes its pool.
 *
 * @param kind {@code sqlite} or {@code postgres}
 * @param migrationsApplied AI migrations applied at this start (0 if already up to date)
 */
public record AiStore(
    String kind, ModelQuotaStore store, int migrationsApplied, List<AutoCloseable> resources)
    implements AutoCloseable {

  @Override
  public void close() {
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        // Shutting down: nothing left to do with the failure.
      }
    }
  }
}
