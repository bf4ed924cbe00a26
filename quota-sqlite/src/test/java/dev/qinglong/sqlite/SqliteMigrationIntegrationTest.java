package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.testkit.MigrationChecksums;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optional AI feature's schema exists only when asked for, and base V2 keeps every bucket row
 * while widening the operation CHECK to {@code model-usage.read}.
 */
class SqliteMigrationIntegrationTest {
  /** The base migration files of this build (versions may have gaps). */
  private static final int BASE_MIGRATIONS = MigrationChecksums.sha256("db/sqlite").size();

  @TempDir Path dir;

  @Test
  void aiDisabledCreatesNoAiTableAndEnablingLaterAppliesItsOwnHistory() throws SQLException {
    try (HikariDataSource ds = SqliteDatabase.open(dir.resolve("qinglong.db"))) {
      assertThat(SqliteDatabase.migrate(ds)).isEqualTo(BASE_MIGRATIONS);
      assertThat(tables(ds)).noneMatch(t -> t.startsWith("model_") || t.contains("_ai_"));

      assertThat(SqliteDatabase.migrateAi(ds)).isEqualTo(SqliteDatabase.AI_REQUIRED_VERSION);
      assertThat(tables(ds))
          .contains(
              "flyway_ai_schema_history",
              "model_invocation_policies",
              "model_project_quota_policies",
              "model_step_runs",
              "model_invocation_reservations",
              "model_invocation_starts",
              "model_invocation_completions",
              "model_usage_ledger",
              "model_invocation_settlements");
      // Both are idempotent, and the base history never sees the AI migrations.
      assertThat(SqliteDatabase.migrate(ds)).isZero();
      assertThat(SqliteDatabase.migrateAi(ds)).isZero();
      assertThat(count(ds, "SELECT count(*) FROM flyway_schema_history"))
          .isEqualTo(BASE_MIGRATIONS);
    }
  }

  @Test
  void baseV2KeepsBucketRowsAndAcceptsModelUsageRead() throws SQLException, IOException {
    Files.createDirectories(dir);
    try (HikariDataSource ds = SqliteDatabase.open(dir.resolve("upgrade.db"))) {
      Flyway.configure()
          .dataSource(ds)
          .locations(SqliteDatabase.MIGRATIONS)
          .target("1")
          .load()
          .migrate();
      String insert =
          "INSERT INTO plugin_package_management_quota_buckets VALUES"
              + " ('p', 'user', 'alice', ?, 1000, 1, '[\"r1\"]', 1001)";
      assertThat(update(ds, insert, "plugin-package.propose")).isEqualTo(1);
      assertThat(rejected(ds, insert, "model-usage.read")).isTrue();
      assertThat(rejected(ds, insert, "artifact.upload")).isTrue();

      assertThat(SqliteDatabase.migrate(ds)).isEqualTo(BASE_MIGRATIONS - 1);
      assertThat(
              count(
                  ds,
                  "SELECT count(*) FROM plugin_package_management_quota_buckets"
                      + " WHERE operation = 'plugin-package.propose' AND receipt_ids = '[\"r1\"]'"
                      + " AND window_started_at_ms = 1000 AND updated_at_ms = 1001"))
          .isEqualTo(1);
      assertThat(update(ds, insert, "model-usage.read")).isEqualTo(1);
      // V4: artifact uploads are counted too.
      assertThat(update(ds, insert, "artifact.upload")).isEqualTo(1);
      assertThat(rejected(ds, insert, "model-usage.write")).isTrue();
    }
  }

  private static List<String> tables(HikariDataSource ds) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT name FROM sqlite_master WHERE type = 'table'");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    assertThat(names).contains("plugin_package_management_quota_buckets");
    return names;
  }

  private static long count(HikariDataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static int update(HikariDataSource ds, String sql, String operation) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, operation);
      return ps.executeUpdate();
    }
  }

  private static boolean rejected(HikariDataSource ds, String sql, String operation) {
    try {
      update(ds, sql.replace("'alice'", "'bob'"), operation);
      return false;
    } catch (SQLException e) {
      return e.getMessage().contains("CHECK");
    }
  }
}
