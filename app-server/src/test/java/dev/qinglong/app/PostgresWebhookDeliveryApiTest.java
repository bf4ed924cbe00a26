package dev.qinglong.app;

import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** Webhook delivery end to end on PostgreSQL (the worker delivers as ql3_package_executor). */
class PostgresWebhookDeliveryApiTest extends WebhookDeliveryApiContract {
  @TempDir static Path dataDir;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    return PgApps.start(
        PostgresTestServer.get().createDatabase("app_webhooks"), dataDir, properties);
  }
}
