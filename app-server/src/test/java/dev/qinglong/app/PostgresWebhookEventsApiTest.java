package dev.qinglong.app;

import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** The refusal's webhook event on PostgreSQL, written as {@code ql3_admin}. */
class PostgresWebhookEventsApiTest extends WebhookEventsApiContract {
  @TempDir static Path dataDir;
  private TestDatabase db;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    db = PostgresTestServer.get().createDatabase("app_webhook_events");
    return PgApps.start(db, dataDir, properties);
  }

  @Override
  protected StoreInspector inspector(TestApp app) {
    return PgApps.inspector(db);
  }
}
