package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.platform.WebhookSealing;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The webhook HTTP contract on the embedded SQLite store. */
class SqliteWebhookApiTest extends WebhookApiContract {
  @TempDir static Path dataDir;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    return TestApp.start(dataDir, properties);
  }

  @Override
  protected StoreInspector inspector(TestApp app) {
    return StoreInspector.sqlite(app.dataDir());
  }

  /** Without a configured key, SQLite generates one beside the database, owner-only. */
  @Test
  void withoutAKeySqliteGeneratesAnOwnerOnlyKeyFile(@TempDir Path other) throws Exception {
    try (TestApp generated = TestApp.start(other, Map.of())) {
      Path key = other.resolve(WebhookSealing.KEY_FILE);
      assertThat(key).exists();
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
          .isEqualTo("rw-------");
      generated.grant("wh-gen", "carol", "project.admin");
      assertThat(
              generated
                  .http
                  .put(
                      "/v1/projects/wh-gen/webhooks/ops",
                      generated.token("carol"),
                      "{\"url\":\"" + TARGET + "\",\"events\":[\"webhook.test\"]}")
                  .status())
          .isEqualTo(201);
    }
  }
}
