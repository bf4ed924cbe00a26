package dev.qinglong.app;

import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The artifact contract on the embedded SQLite store. SQLite is one process per file (a second one
 * is refused at start), so a sibling of another role runs while the main app is stopped; the main
 * app starts again on the same data after the test.
 */
class SqliteArtifactApiTest extends ArtifactApiContract {
  @TempDir static Path dataDir;
  private boolean mainStopped;

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
    if (!mainStopped) {
      app.close();
      mainStopped = true;
    }
    return TestApp.start(dataDir, Map.of("qinglong.role", role));
  }

  @AfterEach
  void restartMainAfterSiblings() {
    if (mainStopped) {
      app = startApp(Map.of("qinglong.artifacts.max-bytes", Integer.toString(MAX_BYTES)));
      http = app.http;
      mainStopped = false;
    }
  }
}
