package dev.qinglong.app.platform;

import static dev.qinglong.app.platform.FailedStarts.action;
import static dev.qinglong.app.platform.FailedStarts.description;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A process that does not migrate ({@code qinglong.postgres.migrate=false}) on a schema older than
 * this build needs, or on a database nobody migrated, or on a database that does not exist: one
 * failure report that says so and what to run, no stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailedStartPostgresTest {
  @TempDir Path dataDir;

  private static Map<String, String> noOwner(TestDatabase db) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", db.jdbcUrl());
    p.put("qinglong.postgres.migrate", "false");
    p.put("qinglong.role", "writer");
    return p;
  }

  private String failedStart(CapturedOutput output, Map<String, String> properties) {
    return FailedStarts.failedStart(output, dataDir, properties);
  }

  @Test
  void aSchemaBehindThisBuild(CapturedOutput output) throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("failed_start_behind");
    assertThat(
            MigrateCommand.run(
                "--qinglong.store=postgres",
                "--qinglong.postgres.url=" + db.jdbcUrl(),
                "--qinglong.postgres.username=" + db.username(),
                "--qinglong.postgres.password=" + (db.password() == null ? "" : db.password()),
                "--qinglong.postgres.bootstrap-roles=true"))
        .isZero();
    int required;
    try (Connection c =
            DriverManager.getConnection(
                db.jdbcUrl(), db.username(), db.password() == null ? "" : db.password());
        Statement st = c.createStatement()) {
      var rs =
          st.executeQuery(
              "SELECT max(version::int) FROM qinglong.flyway_schema_history"
                  + " WHERE version IS NOT NULL");
      rs.next();
      required = rs.getInt(1);
      st.execute("DELETE FROM qinglong.flyway_schema_history WHERE version = '" + required + "'");
    }
    String out = failedStart(output, noOwner(db));
    assertThat(description(out))
        .startsWith("The PostgreSQL schema is not ready for this build and this process does not")
        .contains("(qinglong.postgres.migrate=false): schema behind for package-manager")
        .endsWith("found version " + (required - 1) + ", this build needs " + required);
    assertThat(action(out))
        .startsWith("Run the migrate step first (java -jar app.jar migrate")
        .contains("qinglong.postgres.migrate=true");
  }

  @Test
  void aDatabaseNobodyMigrated(CapturedOutput output) {
    TestDatabase empty = PostgresTestServer.get().createDatabase("failed_start_empty");
    String out = failedStart(output, noOwner(empty));
    assertThat(description(out)).contains("schema not migrated for package-manager");
    assertThat(action(out)).startsWith("Run the migrate step first");
  }

  @Test
  void aDatabaseThatDoesNotExist(CapturedOutput output) {
    TestDatabase db = PostgresTestServer.get().createDatabase("failed_start_missing");
    Map<String, String> p = new LinkedHashMap<>();
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", db.jdbcUrlFor("qinglong_no_such_database"));
    p.put("qinglong.postgres.username", db.username());
    p.put("qinglong.postgres.password", db.password() == null ? "" : db.password());
    String out = failedStart(output, p);
    assertThat(description(out))
        .startsWith("The PostgreSQL database named in qinglong.postgres.url does not exist")
        .contains("qinglong_no_such_database");
    assertThat(action(out)).startsWith("Create the database");
  }
}
