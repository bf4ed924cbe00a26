package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The worker's threshold pass reads model-quota windows as {@code ql3_package_executor}
 * (db/postgres-ai V5): SELECT on the quota policies, reservations and settlements, nothing else of
 * the AI schema, and no write.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresWebhookEventGrantsIntegrationTest {
  private static final List<String> READ =
      List.of(
          "model_project_quota_policies",
          "model_invocation_reservations",
          "model_invocation_settlements");
  private static final List<String> UNSEEN =
      List.of(
          "model_invocation_policies",
          "model_step_runs",
          "model_invocation_starts",
          "model_invocation_completions",
          "model_usage_ledger");

  private PostgresFixture fixture;

  @BeforeAll
  void open() {
    fixture = new PostgresFixture("webhookeventgrants", true);
  }

  @AfterAll
  void close() {
    fixture.close();
  }

  private boolean has(String table, String privilege) throws SQLException {
    try (Connection c = fixture.owner().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT has_table_privilege(?, 'qinglong.' || ?, ?)")) {
      ps.setString(1, PostgresLogins.PACKAGE_EXECUTOR);
      ps.setString(2, table);
      ps.setString(3, privilege);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  @Test
  void theExecutorReadsTheWindowTablesOnlyAndWritesNoneOfThem() throws SQLException {
    for (String table : READ) {
      assertThat(has(table, "SELECT")).as(table).isTrue();
      for (String privilege : List.of("INSERT", "UPDATE", "DELETE", "TRUNCATE")) {
        assertThat(has(table, privilege)).as(table + " " + privilege).isFalse();
      }
    }
    for (String table : UNSEEN) {
      for (String privilege : List.of("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")) {
        assertThat(has(table, privilege)).as(table + " " + privilege).isFalse();
      }
    }
  }
}
