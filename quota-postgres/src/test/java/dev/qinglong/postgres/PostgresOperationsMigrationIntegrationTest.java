package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.testkit.MigrationChecksums;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Base V9 on a database that ran V1 … V8: the operation CHECK becomes a foreign key to {@code
 * management_quota_operations} (every operation of the code a row), buckets of receipt objects are
 * kept as they were, and a bucket still holding a plain-string receipt (schema before V4, never
 * released) is deleted.
 */
class PostgresOperationsMigrationIntegrationTest {
  /**
   * The operations V8's CHECK allowed: a later operation is one INSERT migration away and never
   * needs this test changed.
   */
  private static final List<String> OPERATIONS_AT_V8 =
      List.of(
          "plugin-package.propose",
          "plugin-package.decide",
          "plugin-package.inspect",
          "model-usage.read",
          "artifact.upload");

  private static final String RECEIPT = "{\"id\":\"r1\",\"d\":\"" + "ab".repeat(32) + "\"}";
  private static final String INSERT =
      "INSERT INTO qinglong.plugin_package_management_quota_buckets VALUES"
          + " ('p', 'user', ?, ?, 1000, ?, ?::jsonb, 1001)";

  @Test
  void v9KeepsReceiptObjectBucketsDropsPlainStringOnesAndTurnsTheCheckIntoAForeignKey()
      throws SQLException {
    TestDatabase database = PostgresTestServer.get().createDatabase("operations_v9");
    try (HikariDataSource owner = database.newDataSource(2)) {
      PostgresLogins.bootstrap(owner);
      Flyway.configure()
          .configuration(PostgresMigrations.flyway(owner).getConfiguration())
          .target("8")
          .load()
          .migrate();
      for (String operation : OPERATIONS_AT_V8) {
        assertThat(insert(owner, "alice", operation, 1, "[" + RECEIPT + "]")).isEqualTo(1);
      }
      assertThat(insert(owner, "old", "plugin-package.propose", 1, "[\"r0\"]")).isEqualTo(1);
      assertThat(insert(owner, "mixed", "plugin-package.decide", 2, "[\"r0\"," + RECEIPT + "]"))
          .isEqualTo(1);

      assertThat(PostgresMigrations.migrate(owner))
          .isEqualTo(MigrationChecksums.sha256("db/postgres").size() - 8);

      assertThat(
              count(
                  owner,
                  "SELECT count(*) FROM qinglong.plugin_package_management_quota_buckets"
                      + " WHERE subject_id = 'alice' AND receipt_ids = '["
                      + RECEIPT
                      + "]'::jsonb AND window_started_at_ms = 1000 AND updated_at_ms = 1001"))
          .isEqualTo(OPERATIONS_AT_V8.size());
      assertThat(
              count(owner, "SELECT count(*) FROM qinglong.plugin_package_management_quota_buckets"))
          .isEqualTo(OPERATIONS_AT_V8.size());
      assertThat(count(owner, "SELECT count(*) FROM qinglong.management_quota_operations"))
          .isEqualTo(QuotaOperation.values().length);
      // An unknown operation is refused by the foreign key (23503), and is one INSERT away.
      assertThatThrownBy(
              () -> insert(owner, "bob", "plugin-package.withdraw", 1, "[" + RECEIPT + "]"))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23503"));
      try (Connection c = owner.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO qinglong.management_quota_operations VALUES"
                      + " ('plugin-package.withdraw')")) {
        assertThat(ps.executeUpdate()).isEqualTo(1);
      }
      assertThat(insert(owner, "bob", "plugin-package.withdraw", 1, "[" + RECEIPT + "]"))
          .isEqualTo(1);
      // The narrowed receipt-shape CHECK (23514) refuses a plain string.
      assertThatThrownBy(() -> insert(owner, "carol", "plugin-package.propose", 1, "[\"r1\"]"))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23514"));
    }
  }

  private static int insert(
      HikariDataSource owner, String subject, String operation, int count, String receipts)
      throws SQLException {
    try (Connection c = owner.getConnection();
        PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setString(1, subject);
      ps.setString(2, operation);
      ps.setInt(3, count);
      ps.setString(4, receipts);
      return ps.executeUpdate();
    }
  }

  private static long count(HikariDataSource owner, String sql) throws SQLException {
    try (Connection c = owner.getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
