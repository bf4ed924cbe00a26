package dev.qinglong.app;

import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** Webhook delivery end to end on the embedded SQLite store. */
class SqliteWebhookDeliveryApiTest extends WebhookDeliveryApiContract {
  @TempDir static Path dataDir;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    return TestApp.start(dataDir, properties);
  }
}
