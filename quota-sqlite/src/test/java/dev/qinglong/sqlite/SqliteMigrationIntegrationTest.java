package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.quota.QuotaOperation;
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
 * while widening the operation CHECK to {@code model-usage.read}; V7 makes the operation a foreign
 * key instead.
 */
class SqliteMigrationIntegrationTest {
  /** The base migration files of this build (versions may have gaps). */
  /**
   * The operations the V6 table's CHECK allowed: a later operation is one INSERT migration away and
   * never needs this test changed.
   */
  private static final List<String> OPERATIONS_AT_V6 =
      List.of(
          "plugin-package.propose",
          "plugin-package.decide",
          "plugin-package.inspect",
          "model-usage.read",
          "artifact.upload");

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
      migrateTo(ds, "1");
      String insert =
          "INSERT INTO plugin_package_management_quota_buckets VALUES"
              + " ('p', 'user', 'alice', ?, 1000, 1, '[\"r1\"]', 1001)";
      assertThat(update(ds, insert, "plugin-package.propose")).isEqualTo(1);
      assertThat(rejected(ds, insert, "model-usage.read", "CHECK")).isTrue();
      assertThat(rejected(ds, insert, "artifact.upload", "CHECK")).isTrue();

      migrateTo(ds, "6");
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
      assertThat(rejected(ds, insert, "model-usage.write", "CHECK")).isTrue();
    }
  }

  /**
   * V7 rebuilds the bucket table a last time: the operation is a foreign key to {@code
   * management_quota_operations}, so a later operation is one INSERT; every bucket of receipt
   * objects is kept as it was, and a bucket still holding a plain-string receipt (schema before V3,
   * never released) is not carried over.
   */
  @Test
  void baseV7KeepsReceiptObjectBucketsAndTurnsTheOperationCheckIntoAForeignKey()
      throws SQLException, IOException {
    Files.createDirectories(dir);
    String receipt = "{\"id\":\"r1\",\"d\":\"" + "ab".repeat(32) + "\"}";
    String insert =
        "INSERT INTO plugin_package_management_quota_buckets VALUES"
            + " ('p', 'user', ?, ?, 1000, 1, ?, 1001)";
    try (HikariDataSource ds = SqliteDatabase.open(dir.resolve("v7.db"))) {
      migrateTo(ds, "6");
      for (String operation : OPERATIONS_AT_V6) {
        assertThat(update(ds, insert, "alice", operation, "[" + receipt + "]")).isEqualTo(1);
      }
      assertThat(update(ds, insert, "old", "plugin-package.propose", "[\"r0\"]")).isEqualTo(1);
      assertThat(
              update(
                  ds,
                  insert.replace("1000, 1,", "1000, 2,"),
                  "mixed",
                  "plugin-package.decide",
                  "[\"r0\"," + receipt + "]"))
          .isEqualTo(1);

      assertThat(SqliteDatabase.migrate(ds)).isEqualTo(BASE_MIGRATIONS - 6);
      assertThat(
              count(
                  ds,
                  "SELECT count(*) FROM plugin_package_management_quota_buckets"
                      + " WHERE subject_id = 'alice' AND receipt_ids = '["
                      + receipt
                      + "]' AND window_started_at_ms = 1000 AND updated_at_ms = 1001"))
          .isEqualTo(OPERATIONS_AT_V6.size());
      assertThat(count(ds, "SELECT count(*) FROM plugin_package_management_quota_buckets"))
          .isEqualTo(OPERATIONS_AT_V6.size());
      // Every operation of the code is a row; an unknown one is refused by the foreign key, and
      // becomes storable by one INSERT.
      assertThat(count(ds, "SELECT count(*) FROM management_quota_operations"))
          .isEqualTo(QuotaOperation.values().length);
      assertThat(
              rejected(
                  ds, insert, "bob", "plugin-package.withdraw", "[" + receipt + "]", "FOREIGN KEY"))
          .isTrue();
      assertThat(
              update(
                  ds,
                  "INSERT INTO management_quota_operations VALUES (?)",
                  "plugin-package.withdraw"))
          .isEqualTo(1);
      assertThat(update(ds, insert, "bob", "plugin-package.withdraw", "[" + receipt + "]"))
          .isEqualTo(1);
      // The receipt-shape rule (a CHECK since V7) still holds, plain strings included.
      assertThat(rejected(ds, insert, "carol", "plugin-package.propose", "[\"r1\"]", "CHECK"))
          .isTrue();
    }
  }

  private static void migrateTo(HikariDataSource ds, String version) {
    Flyway.configure()
        .dataSource(ds)
        .locations(SqliteDatabase.MIGRATIONS)
        .target(version)
        .load()
        .migrate();
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

  private static int update(HikariDataSource ds, String sql, String... parameters)
      throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        ps.setString(i + 1, parameters[i]);
      }
      return ps.executeUpdate();
    }
  }

  private static boolean rejected(
      HikariDataSource ds, String sql, String operation, String constraint) {
    try {
      update(ds, sql.replace("'alice'", "'bob'"), operation);
      return false;
    } catch (SQLException e) {
      return e.getMessage().contains(constraint);
    }
  }

  private static boolean rejected(
      HikariDataSource ds,
      String sql,
      String subject,
      String operation,
      String receipts,
      String constraint) {
    try {
      update(ds, sql, subject, operation, receipts);
      return false;
    } catch (SQLException e) {
      return e.getMessage().contains(constraint);
    }
  }
}
