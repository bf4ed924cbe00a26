package dev.qinglong.app;

import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/**
 * The artifact contract on PostgreSQL. Standalone and shared download servers never mix and at most
 * one standalone server runs per database, so here the main app ({@code all}) is shared-mode slot 0
 * of 2 and the sibling reader takes slot 1; writer and worker siblings serve no downloads.
 */
class PostgresArtifactApiTest extends ArtifactApiContract {
  @TempDir static Path dataDir;
  private TestDatabase db;

  private static Map<String, String> shared(int slot) {
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.downloads.mode", "shared");
    p.put("qinglong.downloads.slots", "2");
    p.put("qinglong.downloads.slot", Integer.toString(slot));
    return p;
  }

  @Override
  protected String expectedMode() {
    return "shared";
  }

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    db = PostgresTestServer.get().createDatabase("app_artifacts");
    Map<String, String> p = shared(0);
    p.putAll(properties);
    return PgApps.start(db, dataDir, p);
  }

  @Override
  protected TestApp startSibling(String role) {
    Map<String, String> p = role.equals("reader") ? shared(1) : new HashMap<>();
    p.put("qinglong.role", role);
    return PgApps.start(db, dataDir, p);
  }
}
