package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each role connects only as its own least-privilege login (docs/design.md#least-privilege-logins):
 * after the migrate step ran once as the owner, a reader, a worker and a writer started with {@code
 * qinglong.postgres.migrate=false} and no owner login in their configuration are seen in {@code
 * pg_stat_activity} under their own role names only. A process that does not migrate refuses to
 * start on a schema that is missing or behind.
 */
class RoleLoginsPostgresTest {
  @TempDir Path dataDir;
  private TestDatabase db;

  @BeforeEach
  void migrateOnce() throws Exception {
    db = PostgresTestServer.get().createDatabase("role_logins");
    int exit =
        MigrateCommand.run(
            "--qinglong.store=postgres",
            "--qinglong.postgres.url=" + db.jdbcUrl(),
            "--qinglong.postgres.username=" + db.username(),
            "--qinglong.postgres.password=" + (db.password() == null ? "" : db.password()),
            "--qinglong.postgres.bootstrap-roles=true");
    assertThat(exit).isZero();
    // The migrate step's owner sessions are closed, but PostgreSQL lists each until its backend
    // has exited: wait for that, so a session seen later is the process under test's own.
    await("the migrate step's sessions have exited")
        .atMost(Duration.ofSeconds(60))
        .until(() -> sessionUsers().isEmpty());
    // A writer creates the storage identity that readers only verify.
    FileArtifactStore.forWriter(dataDir, 1024);
  }

  /** The process's configuration: no owner user name, no owner password, no migration. */
  private Map<String, String> noOwner(String role) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", db.jdbcUrl());
    p.put("qinglong.postgres.migrate", "false");
    p.put("qinglong.role", role);
    return p;
  }

  private TestApp start(Map<String, String> properties) {
    TestApp app = TestApp.start(dataDir, properties);
    // Readiness opens every pool the process has (the probes run through each of them).
    Response ready = app.management.get("/actuator/health/readiness", null);
    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
    return app;
  }

  /**
   * The test's own sessions carry this application name, so {@link #sessionUsers} can leave them
   * out even while a closed one is still exiting (PostgreSQL lists a backend in pg_stat_activity
   * until its process is gone, after the client has closed).
   */
  private static final String TEST_SESSION = "qinglong-role-logins-test";

  private Connection ownerConnection() throws Exception {
    Properties props = new Properties();
    props.setProperty("user", db.username());
    props.setProperty("password", db.password() == null ? "" : db.password());
    props.setProperty("ApplicationName", TEST_SESSION);
    return DriverManager.getConnection(db.jdbcUrl(), props);
  }

  private static ResultSet query(PreparedStatement ps, String parameter) throws Exception {
    ps.setString(1, parameter);
    return ps.executeQuery();
  }

  private void asOwner(String sql) throws Exception {
    try (Connection c = ownerConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** The login names of every session on the test database except this test's own. */
  private Set<String> sessionUsers() throws Exception {
    try (Connection c = ownerConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT DISTINCT usename FROM pg_stat_activity"
                    + " WHERE datname = current_database() AND application_name <> ?");
        ResultSet rs = query(ps, TEST_SESSION)) {
      Set<String> out = new TreeSet<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }

  @Test
  void aReaderConnectsOnlyAsQl3Reader() throws Exception {
    try (TestApp reader = start(noOwner("reader"))) {
      // A Policy read through ql3_reader: alice has no membership here (nothing was seeded).
      Response r = reader.http.get("/v1/projects/demo/members", reader.token("alice"));
      assertThat(r.status()).as(r.body()).isEqualTo(403);
      // With package.read, the published-artifact read runs through ql3_reader too: an artifact
      // that is not published is the documented 409 (a refused grant would be 503).
      asOwner(
          "INSERT INTO qinglong.project_members (project_id, user_id, permissions, updated_at_ms)"
              + " VALUES ('demo', 'alice', ARRAY['package.read'], 0)");
      Response members = reader.http.get("/v1/projects/demo/members", reader.token("alice"));
      assertThat(members.status()).as(members.body()).isEqualTo(200);
      Response download =
          reader.http.get(
              "/v1/projects/demo/artifacts/sha256:" + "b".repeat(64), reader.token("alice"));
      assertThat(download.status()).as(download.body()).isEqualTo(409);
      assertThat(sessionUsers()).containsExactly("ql3_reader");
      assertThat(reader.bean(OpenedStore.class).parts())
          .isEqualTo(new dev.qinglong.backend.BackendParts(false, false, false, true));
    }
  }

  @Test
  void aWorkerConnectsOnlyAsQl3PackageExecutor() throws Exception {
    try (TestApp worker = start(noOwner("worker"))) {
      assertThat(sessionUsers()).containsExactly("ql3_package_executor");
    }
  }

  @Test
  void aWriterConnectsOnlyAsPackageManagerAndAdmin() throws Exception {
    try (TestApp writer = start(noOwner("writer"))) {
      assertThat(sessionUsers()).containsExactly("ql3_admin", "ql3_package_manager");
    }
  }

  @Test
  void aProcessThatDoesNotMigrateRefusesASchemaThatIsBehind() throws Exception {
    try (Connection c = ownerConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "DELETE FROM qinglong.flyway_schema_history WHERE version = (SELECT max(version::int)"
              + " FROM qinglong.flyway_schema_history WHERE version IS NOT NULL)::text");
    }
    assertThatThrownBy(() -> TestApp.start(dataDir, noOwner("writer")))
        .rootCause()
        .hasMessageContaining("schema behind")
        .hasMessageContaining("Run the migrate step");
  }

  @Test
  void aProcessThatDoesNotMigrateRefusesAnUnmigratedDatabase() {
    TestDatabase empty = PostgresTestServer.get().createDatabase("role_logins_empty");
    Map<String, String> p = noOwner("reader");
    p.put("qinglong.postgres.url", empty.jdbcUrl());
    assertThatThrownBy(() -> TestApp.start(dataDir, p))
        .rootCause()
        .hasMessageContaining("schema not migrated")
        .hasMessageContaining("Run the migrate step");
  }

  @Test
  void migratingNeedsTheOwnerLogin() {
    Map<String, String> p = noOwner("writer");
    p.put("qinglong.postgres.migrate", "true");
    assertThatThrownBy(() -> TestApp.start(dataDir, p))
        .rootCause()
        .hasMessageContaining("qinglong.postgres.username");
    assertThat(
            MigrateCommand.run(
                "--qinglong.store=postgres", "--qinglong.postgres.url=" + db.jdbcUrl()))
        .isEqualTo(1);
  }
}
