package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP contract on PostgreSQL, each component on its own least-privilege role and pool. */
class PostgresApiTest extends ApiContract {
  @TempDir static Path dataDir;
  private TestDatabase db;

  @Override
  protected TestApp startApp(Map<String, String> properties) {
    db = PostgresTestServer.get().createDatabase("app_api");
    return PgApps.start(db, dataDir, properties);
  }

  @Override
  protected StoreInspector inspector(TestApp app) {
    return PgApps.inspector(db);
  }

  private void asOwner(String sql) throws Exception {
    try (Connection c =
            DriverManager.getConnection(
                db.jdbcUrl(), db.username(), db.password() == null ? "" : db.password());
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  @Test
  void realConnectionLossGives503AndReadinessDownThenRecovers() throws Exception {
    assertThat(app.management.get("/actuator/health/readiness", null).status()).isEqualTo(200);
    String quoted = "\"" + db.name() + "\"";
    asOwner("REVOKE CONNECT ON DATABASE " + quoted + " FROM PUBLIC");
    try {
      asOwner(
          "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = current_database()"
              + " AND usename LIKE 'ql3\\_%' AND pid <> pg_backend_pid()");
      Response r = http.post(proposals("demo"), token("alice"), installJson("pg-cut-1", "x"));
      assertProblem(r, 503, "unavailable");
      Response ready = app.awaitReadiness(503);
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.body()).contains("DOWN").doesNotContain("password", "Exception");
    } finally {
      asOwner("GRANT CONNECT ON DATABASE " + quoted + " TO PUBLIC");
    }
    long deadline = System.nanoTime() + 15_000_000_000L;
    int status = 0;
    while (System.nanoTime() < deadline && status != 200) {
      status = app.management.get("/actuator/health/readiness", null).status();
      if (status != 200) {
        Thread.sleep(200);
      }
    }
    assertThat(status).isEqualTo(200);
    Response ok = http.post(proposals("demo"), token("alice"), installJson("pg-cut-1", "x"));
    assertThat(ok.status()).as(ok.body()).isEqualTo(201);
  }

  @Test
  void componentsUseTheirOwnRolesAndTheManagerPoolIsBounded() throws Exception {
    // Drive some traffic, then look at who is connected.
    for (int i = 0; i < 5; i++) {
      http.post(proposals("demo"), token("alice"), installJson("roles-" + i, "x"));
    }
    http.put("/v1/projects/roles/members/bob", token("admin"), "{\"permissions\":[]}");
    try (Connection c =
            DriverManager.getConnection(
                db.jdbcUrl(), db.username(), db.password() == null ? "" : db.password());
        Statement st = c.createStatement();
        var rs =
            st.executeQuery(
                "SELECT usename, count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND application_name LIKE 'qinglong-%' GROUP BY usename")) {
      Map<String, Integer> byUser = new java.util.HashMap<>();
      while (rs.next()) {
        byUser.put(rs.getString(1), rs.getInt(2));
      }
      // + the publication worker (its pool and its lock connection), the download mode barrier
      // (whose
      // session another test of this class may have terminated; the keeper then re-takes it on a
      // new
      // session) and the one-connection ql3_reader pool of the downloads-schema probe.
      assertThat(byUser.keySet())
          .contains("ql3_package_manager", "ql3_admin")
          .isSubsetOf("ql3_package_manager", "ql3_admin", "ql3_package_executor", "ql3_reader");
      assertThat(byUser.getOrDefault("ql3_package_executor", 0)).isBetween(0, 2);
      assertThat(byUser.getOrDefault("ql3_reader", 0)).isBetween(0, 2);
      assertThat(byUser.get("ql3_package_manager")).isBetween(1, 2);
    }
  }
}
