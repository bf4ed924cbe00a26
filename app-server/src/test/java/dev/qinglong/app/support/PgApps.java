package dev.qinglong.app.support;

import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Starts apps on a PostgreSQL test database (superuser as schema owner, roles bootstrapped). */
public final class PgApps {
  private PgApps() {}

  public static TestApp start(TestDatabase db, Path dataDir, Map<String, String> extra) {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("qinglong.store", "postgres");
    props.put("qinglong.postgres.url", db.jdbcUrl());
    props.put("qinglong.postgres.username", db.username());
    props.put("qinglong.postgres.password", db.password() == null ? "" : db.password());
    props.put("qinglong.postgres.bootstrap-roles", "true");
    props.putAll(extra);
    return TestApp.start(dataDir, props);
  }

  public static StoreInspector inspector(TestDatabase db) {
    return new StoreInspector(
        db.jdbcUrl(), db.username(), db.password() == null ? "" : db.password(), "qinglong.");
  }
}
