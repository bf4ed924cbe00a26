package dev.qinglong.app;

import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** The artifact contract on the embedded SQLite store. */
class SqliteArtifactApiTest extends ArtifactApiContract {
  @TempDir static Path dataDir;

  @Override
  protected String expectedMode() {
    return "standalone";
  }

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    return TestApp.start(dataDir, properties);
  }

  @Override
  protected TestApp startSibling(String role) {
    return TestApp.start(dataDir, Map.of("qinglong.role", role));
  }
}
