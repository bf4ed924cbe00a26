package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The optional AI feature on PostgreSQL: absent unless migrated, its own history, and least
 * privilege: ql3_runtime may only SELECT and INSERT receipts (UPDATE only on StepRuns) and only
 * SELECT the policies; ql3_admin only SELECT and INSERT the policies; nobody else and not PUBLIC
 * holds anything on the AI tables.
 */
class PostgresAiFeatureIntegrationTest {
  private static final String INSUFFICIENT_PRIVILEGE = "42501";
  private static final List<String> POLICIES =
      List.of("model_invocation_policies", "model_project_quota_policies");
  private static final List<String> RECEIPTS =
      List.of(
          "model_invocation_reservations",
          "model_invocation_starts",
          "model_invocation_completions",
          "model_usage_ledger",
          "model_invocation_settlements");
  private static final String STEP_RUNS = "model_step_runs";

  /**
   * What the worker's login reads of the model quota: a window's policy, reservations, releases.
   */
  private static final List<String> WINDOWS =
      List.of(
          "model_project_quota_policies",
          "model_invocation_reservations",
          "model_invocation_settlements");

  @Test
  void disabledMeansNoAiTableAndEnablingLaterAppliesItsOwnHistory() throws SQLException {
    PostgresFixture fixture = new PostgresFixture("aidisabled");
    try {
      assertThat(count(fixture, "model\\_%")).isZero();
      assertThat(count(fixture, "flyway\\_ai\\_%")).isZero();

      assertThat(PostgresMigrations.migrateAi(fixture.owner()))
          .isEqualTo(PostgresMigrations.AI_REQUIRED_VERSION);
      assertThat(count(fixture, "model\\_%")).isEqualTo(8);
      assertThat(count(fixture, "flyway\\_ai\\_schema\\_history")).isEqualTo(1);
      assertThat(PostgresMigrations.migrateAi(fixture.owner())).isZero();
      assertThat(PostgresMigrations.migrate(fixture.owner())).isZero();
      assertThat(PostgresMigrations.appliedVersion(fixture.owner()))
          .isEqualTo(PostgresMigrations.REQUIRED_VERSION);
    } finally {
      fixture.close();
    }
  }

  @Test
  void runtimeWritesReceiptsButCannotUpdateOrDeleteThem() throws SQLException {
    PostgresFixture fixture = new PostgresFixture("aiprivileges", true);
    try {
      HikariDataSource runtime = fixture.rolePool(PostgresLogins.RUNTIME, 2);
      JdbcModelQuotaStore store = new JdbcModelQuotaStore(runtime, PostgresDialect.INSTANCE);
      JdbcModelQuotaStore admin =
          new JdbcModelQuotaStore(
              fixture.rolePool(PostgresLogins.ADMIN, 1), PostgresDialect.INSTANCE);
      admin.putModelPolicy("p1", "m1", 10, null);
      admin.putProjectQuota("p1", QuotaWindow.ONE_MINUTE, 5, 100, null);
      store.createStepRun("p1", "s1", "r1", "m1");
      assertThat(store.admit(new AdmissionRequest("p1", "inv1", "s1")))
          .isInstanceOf(AdmissionOutcome.Admitted.class);

      for (String table : RECEIPTS) {
        assertDenied(runtime, "UPDATE " + table + " SET project_id = project_id");
        assertDenied(runtime, "DELETE FROM " + table);
        assertDenied(runtime, "TRUNCATE " + table);
        for (String privilege : List.of("SELECT", "INSERT")) {
          assertThat(has(fixture, PostgresLogins.RUNTIME, table, privilege))
              .as(table + " " + privilege)
              .isTrue();
        }
        for (String privilege : List.of("UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")) {
          assertThat(has(fixture, PostgresLogins.RUNTIME, table, privilege))
              .as(table + " " + privilege)
              .isFalse();
        }
      }
      for (String table : POLICIES) {
        assertDenied(runtime, "INSERT INTO " + table + " SELECT * FROM " + table);
        assertDenied(runtime, "UPDATE " + table + " SET project_id = project_id");
        assertThat(has(fixture, PostgresLogins.RUNTIME, table, "SELECT")).as(table).isTrue();
        for (String privilege : List.of("INSERT", "UPDATE", "DELETE", "TRUNCATE")) {
          assertThat(has(fixture, PostgresLogins.RUNTIME, table, privilege))
              .as(table + " " + privilege)
              .isFalse();
        }
        for (String privilege : List.of("SELECT", "INSERT")) {
          assertThat(has(fixture, PostgresLogins.ADMIN, table, privilege))
              .as("admin " + table + " " + privilege)
              .isTrue();
        }
        for (String privilege : List.of("UPDATE", "DELETE", "TRUNCATE")) {
          assertThat(has(fixture, PostgresLogins.ADMIN, table, privilege))
              .as("admin " + table + " " + privilege)
              .isFalse();
        }
      }
      assertThat(has(fixture, PostgresLogins.RUNTIME, STEP_RUNS, "UPDATE")).isTrue();
      assertThat(has(fixture, PostgresLogins.RUNTIME, STEP_RUNS, "DELETE")).isFalse();
      assertDenied(runtime, "DELETE FROM " + STEP_RUNS);

      for (String role : PostgresLogins.ALL) {
        if (role.equals(PostgresLogins.RUNTIME)) {
          continue;
        }
        HikariDataSource other = fixture.rolePool(role, 1);
        // The worker's threshold pass reads windows as the executor (db/postgres-ai V5): SELECT
        // on the Project quota policies, reservations and settlements, and nothing more.
        boolean windowReader = role.equals(PostgresLogins.PACKAGE_EXECUTOR);
        if (!windowReader) {
          assertDenied(other, "SELECT count(*) FROM model_invocation_reservations");
        }
        for (String table : RECEIPTS) {
          for (String privilege : List.of("SELECT", "INSERT", "UPDATE", "DELETE")) {
            boolean allowed = windowReader && privilege.equals("SELECT") && WINDOWS.contains(table);
            assertThat(has(fixture, role, table, privilege))
                .as(role + " " + table + " " + privilege)
                .isEqualTo(allowed);
          }
        }
        if (!role.equals(PostgresLogins.ADMIN)) {
          for (String table : POLICIES) {
            for (String privilege : List.of("SELECT", "INSERT", "UPDATE", "DELETE")) {
              boolean allowed =
                  windowReader && privilege.equals("SELECT") && WINDOWS.contains(table);
              assertThat(has(fixture, role, table, privilege))
                  .as(role + " " + table + " " + privilege)
                  .isEqualTo(allowed);
            }
          }
        }
        assertThat(has(fixture, role, STEP_RUNS, "SELECT")).isFalse();
      }
      assertThat(
              query(
                  fixture,
                  "SELECT count(*) FROM pg_class c, aclexplode(c.relacl) a"
                      + " WHERE c.relnamespace = 'qinglong'::regnamespace AND a.grantee = 0"))
          .isZero();
      assertThat(
              query(
                  fixture,
                  "SELECT count(*) FROM pg_proc p, aclexplode(p.proacl) a"
                      + " WHERE p.pronamespace = 'qinglong'::regnamespace AND a.grantee = 0"))
          .isZero();
    } finally {
      fixture.close();
    }
  }

  private static long count(PostgresFixture fixture, String likePattern) throws SQLException {
    return query(
        fixture,
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'qinglong' AND tablename LIKE '"
            + likePattern
            + "'");
  }

  private static boolean has(PostgresFixture f, String role, String table, String privilege)
      throws SQLException {
    return query(
            f,
            "SELECT CASE WHEN has_table_privilege('"
                + role
                + "', 'qinglong."
                + table
                + "', '"
                + privilege
                + "') THEN 1 ELSE 0 END")
        == 1;
  }

  private static long query(PostgresFixture fixture, String sql) throws SQLException {
    try (Connection c = fixture.owner().getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void assertDenied(HikariDataSource pool, String sql) {
    assertThatThrownBy(
            () -> {
              try (Connection c = pool.getConnection();
                  Statement st = c.createStatement()) {
                st.execute(sql);
              }
            })
        .as(sql)
        .isInstanceOf(SQLException.class)
        .satisfies(
            e -> assertThat(((SQLException) e).getSQLState()).isEqualTo(INSUFFICIENT_PRIVILEGE));
  }
}
