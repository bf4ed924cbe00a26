package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rollback that docs/deploy.md ("Upgrade policy and rollback") promises: after the next
 * release's migration Job ran (here: this build's migrations plus an expand-only stand-in {@code
 * V999}, far ahead so that this build's own migrations never reach it), this build — the previous
 * release — still starts on that schema as writer, reader and worker with {@code
 * qinglong.postgres.migrate=false}, is ready and serves writes; and re-running this build's migrate
 * step (the previous release's Job, as a rollback re-applies it) succeeds, applies nothing and
 * keeps the newer history. A schema version this build does not know is accepted as long as it is
 * not behind what this build needs; the upgrade policy (expand only, contract one release later) is
 * what makes that safe.
 */
class RollbackToPreviousReleasePostgresTest {
  private static final String DIGEST = "sha256:" + "ab".repeat(32);

  @TempDir Path dataDir;
  private TestDatabase db;

  @BeforeEach
  void migrateThisReleaseThenTheNext() throws Exception {
    db = PostgresTestServer.get().createDatabase("rollback_previous");
    assertThat(MigrateCommand.run(migrateArgs())).isZero();
    assertThat(PostgresMigrations.REQUIRED_VERSION)
        .as("the stand-in must be newer than every migration of this build")
        .isLessThan(999);
    // The next release's Job: the same history table, one more migration.
    int applied =
        Flyway.configure()
            .dataSource(db.jdbcUrl(), db.username(), password())
            .schemas(PostgresMigrations.SCHEMA)
            .table(PostgresMigrations.HISTORY_TABLE)
            .locations(PostgresMigrations.LOCATION, "classpath:db/next-release-example")
            .load()
            .migrate()
            .migrationsExecuted;
    assertThat(applied).isEqualTo(1);
    assertThat(history()).endsWith("999");
    FileArtifactStore.forWriter(dataDir, 1024);
  }

  private String[] migrateArgs() {
    return new String[] {
      "--qinglong.store=postgres",
      "--qinglong.postgres.url=" + db.jdbcUrl(),
      "--qinglong.postgres.username=" + db.username(),
      "--qinglong.postgres.password=" + password(),
      "--qinglong.postgres.bootstrap-roles=true"
    };
  }

  private String password() {
    return db.password() == null ? "" : db.password();
  }

  private Map<String, String> noOwner(String role) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", db.jdbcUrl());
    p.put("qinglong.postgres.migrate", "false");
    p.put("qinglong.role", role);
    return p;
  }

  /** Successfully applied versions of the base history, in order of installation. */
  private List<String> history() throws Exception {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.username(), password());
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT version FROM qinglong.flyway_schema_history"
                    + " WHERE success AND version IS NOT NULL ORDER BY installed_rank");
        ResultSet rs = ps.executeQuery()) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }

  @Test
  void thePreviousReleaseRunsOnTheSchemaOfTheNextAsWriterReaderAndWorker() {
    try (TestApp writer = TestApp.start(dataDir, noOwner("writer"));
        TestApp reader = TestApp.start(dataDir, noOwner("reader"));
        TestApp worker = TestApp.start(dataDir, noOwner("worker"))) {
      for (TestApp app : List.of(writer, reader, worker)) {
        Response ready = app.management.get("/actuator/health/readiness", null);
        assertThat(ready.status()).as(ready.body()).isEqualTo(200);
      }
      // Writes through the previous release's statements on the expanded tables.
      Response granted =
          writer.http.put(
              "/v1/projects/demo/members/alice",
              writer.token("admin"),
              "{\"permissions\":[\"package.manage\",\"package.read\"]}");
      assertThat(granted.status()).as(granted.body()).isEqualTo(200);
      Response proposed =
          writer.http.post(
              "/v1/projects/demo/plugin-packages/proposals",
              writer.token("alice"),
              "{\"actionRef\":\"r-1\",\"action\":{\"type\":\"install\",\"package\":\"left-pad\","
                  + "\"version\":\"1.2.3\",\"artifactDigest\":\""
                  + DIGEST
                  + "\"}}");
      assertThat(proposed.status()).as(proposed.body()).isEqualTo(201);
      // Reads through ql3_reader on the same schema.
      Response members = reader.http.get("/v1/projects/demo/members", reader.token("alice"));
      assertThat(members.status()).as(members.body()).isEqualTo(200);
    }
  }

  @Test
  void thePreviousReleasesMigrateStepOnTheNewerSchemaAppliesNothingAndSucceeds() throws Exception {
    List<String> before = history();
    assertThat(MigrateCommand.run(migrateArgs())).isZero();
    assertThat(history()).isEqualTo(before);
  }
}
