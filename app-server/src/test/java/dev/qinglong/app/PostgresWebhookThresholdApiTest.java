package dev.qinglong.app;

import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model-quota threshold event on PostgreSQL, read and written as {@code ql3_package_executor}.
 */
class PostgresWebhookThresholdApiTest extends WebhookThresholdApiContract {
  @TempDir static Path dataDir;
  private TestDatabase db;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    db = PostgresTestServer.get().createDatabase("app_webhook_thresholds");
    return PgApps.start(db, dataDir, properties);
  }

  @Override
  protected StoreInspector inspector(TestApp app) {
    return PgApps.inspector(db);
  }
}
