package dev.qinglong.app;

import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** The model-quota threshold event on the embedded SQLite store. */
class SqliteWebhookThresholdApiTest extends WebhookThresholdApiContract {
  @TempDir static Path dataDir;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    return TestApp.start(dataDir, properties);
  }

  @Override
  protected StoreInspector inspector(TestApp app) {
    return StoreInspector.sqlite(app.dataDir());
  }
}
