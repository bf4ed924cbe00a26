package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Connects as each ql3_* role and proves what it can and cannot do (DESIGN §4). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresRolePrivilegesIntegrationTest {
  private static final String BUCKETS = "plugin_package_management_quota_buckets";
  private static final String INSUFFICIENT_PRIVILEGE = "42501";
  private static final List<String> OTHERS =
      List.of(
          PostgresRoles.ADMIN,
          PostgresRoles.PACKAGE_EXECUTOR,
          PostgresRoles.RUNTIME,
          PostgresRoles.WORKER_INGRESS);

  private PostgresFixture fixture;

  @BeforeAll
  void setUp() {
    fixture = new PostgresFixture("roles");
  }

  @AfterAll
  void tearDown() {
    fixture.close();
  }

  @Test
  void packageManagerDecidesQuotaButCannotDeleteOrTruncate() throws SQLException {
    HikariDataSource manager = fixture.rolePool(PostgresRoles.PACKAGE_MANAGER, 1);
    QuotaKey key = QuotaKey.user("prj-roles", "alice", QuotaOperation.PROPOSE);
    QuotaDecision d =
        new JdbcManagementQuotaStore(manager, PostgresDialect.INSTANCE)
            .consume(
                key,
                new ReceiptId("r1"),
                RequestDigest.of(key.operation(), "t"),
                5,
                Duration.ofSeconds(60));
    assertThat(d).isInstanceOf(QuotaDecision.Allowed.class);

    assertDenied(manager, "DELETE FROM " + BUCKETS);
    assertDenied(manager, "TRUNCATE " + BUCKETS);
    assertDenied(manager, "DROP TABLE " + BUCKETS);
    assertDenied(manager, "ALTER TABLE " + BUCKETS + " DROP CONSTRAINT IF EXISTS x");
    assertDenied(manager, "CREATE TABLE qinglong.intruder (id int)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"ql3_admin", "ql3_package_executor", "ql3_runtime", "ql3_worker_ingress"})
  void otherRolesCannotTouchTheBuckets(String role) {
    HikariDataSource pool = fixture.rolePool(role, 1);
    assertDenied(pool, "SELECT count(*) FROM " + BUCKETS);
    assertDenied(
        pool,
        "INSERT INTO "
            + BUCKETS
            + " VALUES ('p', 'user', 'u', 'plugin-package.propose', 0, 1, '[\"r\"]', 0)");
    assertDenied(pool, "UPDATE " + BUCKETS + " SET consumed_count = 1");
    assertDenied(pool, "DELETE FROM " + BUCKETS);
    assertDenied(pool, "CREATE TABLE qinglong.intruder (id int)");
  }

  @Test
  void packageExecutorMayOnlyReadProposalsAndChangeTheirState() throws SQLException {
    String executor = PostgresRoles.PACKAGE_EXECUTOR;
    String proposals = "plugin_package_proposals";
    assertThat(hasTablePrivilege(executor, proposals, "SELECT")).isTrue();
    assertThat(hasTablePrivilege(executor, proposals, "INSERT")).isFalse();
    assertThat(
            query(
                "SELECT has_column_privilege('"
                    + executor
                    + "', 'qinglong."
                    + proposals
                    + "', 'state', 'UPDATE')"))
        .isTrue();
    assertThat(
            query(
                "SELECT has_column_privilege('"
                    + executor
                    + "', 'qinglong."
                    + proposals
                    + "', 'action_digest', 'UPDATE')"))
        .isFalse();
    for (String table : List.of("plugin_package_approvals", "project_members")) {
      for (String privilege : List.of("SELECT", "INSERT", "UPDATE")) {
        assertThat(hasTablePrivilege(executor, table, privilege))
            .as(executor + " " + privilege + " " + table)
            .isFalse();
      }
    }
    HikariDataSource pool = fixture.rolePool(executor, 1);
    assertDenied(pool, "UPDATE qinglong." + proposals + " SET action_digest = action_digest");
    assertDenied(pool, "SELECT count(*) FROM qinglong.plugin_package_approvals");
  }

  @Test
  void catalogShowsExactlyTheGrantsOfTheDesign() throws SQLException {
    for (String privilege : List.of("SELECT", "INSERT", "UPDATE")) {
      assertThat(hasTablePrivilege(PostgresRoles.PACKAGE_MANAGER, BUCKETS, privilege)).isTrue();
      for (String other : OTHERS) {
        assertThat(hasTablePrivilege(other, BUCKETS, privilege))
            .as(other + " " + privilege)
            .isFalse();
      }
    }
    for (String role : PostgresRoles.ALL) {
      for (String table :
          List.of(
              BUCKETS, "plugin_package_proposals", "plugin_package_approvals", "project_members")) {
        assertThat(hasTablePrivilege(role, table, "DELETE"))
            .as(role + " DELETE " + table)
            .isFalse();
        assertThat(hasTablePrivilege(role, table, "TRUNCATE")).as(role + " TRUNCATE").isFalse();
      }
      assertThat(query("SELECT has_schema_privilege('" + role + "', 'qinglong', 'CREATE')"))
          .as(role + " CREATE on schema")
          .isFalse();
      assertThat(
              query(
                  "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = 'qinglong'"
                      + " AND tableowner = '"
                      + role
                      + "')"))
          .as(role + " owns nothing")
          .isFalse();
    }
  }

  @Test
  void publicHoldsNothingInTheSchema() throws SQLException {
    assertThat(
            query(
                "SELECT EXISTS (SELECT 1 FROM pg_class c, aclexplode(c.relacl) a"
                    + " WHERE c.relnamespace = 'qinglong'::regnamespace AND a.grantee = 0)"))
        .isFalse();
    assertThat(
            query(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace n, aclexplode(n.nspacl) a"
                    + " WHERE n.nspname = 'qinglong' AND a.grantee = 0)"))
        .isFalse();
  }

  private boolean hasTablePrivilege(String role, String table, String privilege)
      throws SQLException {
    return query(
        "SELECT has_table_privilege('"
            + role
            + "', 'qinglong."
            + table
            + "', '"
            + privilege
            + "')");
  }

  private boolean query(String sql) throws SQLException {
    try (Connection c = fixture.owner().getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getBoolean(1);
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
            e ->
                assertThat(((SQLException) e).getSQLState()).isIn(INSUFFICIENT_PRIVILEGE, "42P01"));
  }
}
