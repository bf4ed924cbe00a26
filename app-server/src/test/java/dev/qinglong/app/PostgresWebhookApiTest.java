package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook HTTP contract on PostgreSQL: registrations as {@code ql3_admin}, the outbox rows of
 * proposals as {@code ql3_package_manager}.
 */
class PostgresWebhookApiTest extends WebhookApiContract {
  @TempDir static Path dataDir;
  private TestDatabase db;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    db = PostgresTestServer.get().createDatabase("app_webhooks");
    return PgApps.start(db, dataDir, properties);
  }

  @Override
  protected StoreInspector inspector(TestApp app) {
    return PgApps.inspector(db);
  }

  /** Without qinglong.webhooks.secret-key there are no webhooks on PostgreSQL: 503, not a 500. */
  @Test
  void withoutAKeyTheWebhookRoutesAre503(@TempDir Path other) {
    TestDatabase off = PostgresTestServer.get().createDatabase("app_webhooks_off");
    try (TestApp noKey = PgApps.start(off, other, Map.of())) {
      noKey.grant("wh-off", "carol", "project.admin");
      assertProblem(
          noKey.http.put(
              "/v1/projects/wh-off/webhooks/ops",
              noKey.token("carol"),
              "{\"url\":\"" + TARGET + "\",\"events\":[\"webhook.test\"]}"),
          503,
          "unavailable");
      assertProblem(
          noKey.http.get("/v1/projects/wh-off/webhooks", noKey.token("carol")), 503, "unavailable");
      // Nor does the worker get a store to deliver from.
      assertThat(noKey.bean(OpenedStore.class).webhooks()).isEmpty();
      assertThat(noKey.bean(OpenedStore.Worker.class).webhooks()).isEmpty();
    }
  }
}
