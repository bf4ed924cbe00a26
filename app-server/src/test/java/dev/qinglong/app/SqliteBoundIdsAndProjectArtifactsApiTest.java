package dev.qinglong.app;

import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** The bound-ids and per-Project-artifacts HTTP contract on the embedded SQLite store. */
class SqliteBoundIdsAndProjectArtifactsApiTest extends BoundIdsAndProjectArtifactsApiContract {
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
