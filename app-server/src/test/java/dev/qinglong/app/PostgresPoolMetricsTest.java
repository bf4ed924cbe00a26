package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On PostgreSQL every component pool a process opens (one per database login) has HikariCP's
 * metrics, tagged with its pool name, and they move: a request through the package-manager pool
 * counts a connection acquisition there.
 */
class PostgresPoolMetricsTest {
  @TempDir Path dir;

  @Test
  void everyPoolOfAnAllProcessWithAiHasItsMetrics() {
    TestDatabase db = PostgresTestServer.get().createDatabase("app_pool_metrics");
    try (TestApp app = PgApps.start(db, dir, Map.of("qinglong.ai.enabled", "true"))) {
      String before = app.management.get("/actuator/prometheus", null).body();
      Http.Response proposal =
          app.http.post(
              ApiContract.proposals("demo"),
              app.token("alice"),
              ApiContract.installJson("pool-1", "left-pad"));
      assertThat(proposal.status()).as(proposal.body()).isEqualTo(201);
      String after = app.management.get("/actuator/prometheus", null).body();

      for (String pool :
          new String[] {
            "qinglong-package-manager",
            "qinglong-admin",
            "qinglong-runtime",
            "qinglong-package-executor",
            "qinglong-reader"
          }) {
        String tag = "pool=\"" + pool + "\"";
        assertThat(ObservabilityTest.value(after, "hikaricp_connections_max", tag))
            .as(pool)
            .isGreaterThanOrEqualTo(1);
        ObservabilityTest.value(after, "hikaricp_connections_pending", tag);
        ObservabilityTest.value(after, "hikaricp_connections_timeout_total", tag);
      }
      String manager = "pool=\"qinglong-package-manager\"";
      assertThat(
              ObservabilityTest.value(after, "hikaricp_connections_acquire_seconds_count", manager))
          .isGreaterThan(
              ObservabilityTest.value(
                  before, "hikaricp_connections_acquire_seconds_count", manager));
    }
  }
}
