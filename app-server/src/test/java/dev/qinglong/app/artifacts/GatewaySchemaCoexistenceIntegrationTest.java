package dev.qinglong.app.artifacts;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.postgres.PostgresLogins;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.leases.DedicatedConnectionFactory;
import dev.qinglong.postgres.leases.GatewayMigrations;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real base schema and the shared-download schema in one database, as the app migrates them:
 * two Flyway histories side by side, and neither side's roles see the other side's tables. Lives
 * here because only this module depends on both {@code quota-postgres} and {@code gateway-lease};
 * {@code gateway-lease}'s own schema test runs against a stand-in base schema.
 */
class GatewaySchemaCoexistenceIntegrationTest {
  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  private static TestDatabase database;
  private static HikariDataSource owner;

  @BeforeAll
  static void setUp() {
    database = PostgresTestServer.get().createDatabase("gateway_coexist");
    owner = database.newDataSource(2);
    PostgresLogins.bootstrap(owner);
    PostgresMigrations.migrate(owner);
    GatewayMigrations.migrate(owner);
  }

  @AfterAll
  static void tearDown() {
    owner.close();
  }

  @Test
  void bothHistoriesAreAtTheirRequiredVersionsAndMigrateIsIdempotent() throws SQLException {
    assertThat(GatewayMigrations.appliedVersion(owner))
        .isEqualTo(GatewayMigrations.REQUIRED_VERSION);
    assertThat(PostgresMigrations.appliedVersion(owner))
        .isEqualTo(PostgresMigrations.REQUIRED_VERSION);
    assertThat(GatewayMigrations.migrate(owner)).isZero();
    assertThat(PostgresMigrations.migrate(owner)).isZero();
  }

  /**
   * ql3_reader reads exactly what a read gateway needs (downloads V2): Policy, and which artifacts
   * a Project published — three columns of the proposals, nothing else of governance or quota, and
   * writes none of it.
   */
  @Test
  void theReaderReadsOnlyPolicyAndPublishedArtifacts() throws SQLException {
    try (Connection c = connect(PostgresLogins.READER);
        Statement st = c.createStatement()) {
      st.execute("SELECT count(*) FROM qinglong.download_slot_leases");
      st.execute("SELECT user_id, permissions FROM qinglong.project_members");
      st.execute(
          "SELECT 1 FROM qinglong.plugin_package_proposals"
              + " WHERE project_id = 'p' AND artifact_digest = 'd' AND state = 'published'");
      assertThat(denied(st, "SELECT * FROM qinglong.plugin_package_proposals")).isTrue();
      assertThat(denied(st, "SELECT action_ref FROM qinglong.plugin_package_proposals")).isTrue();
      assertThat(denied(st, "SELECT * FROM qinglong.plugin_package_approvals")).isTrue();
      assertThat(denied(st, "SELECT * FROM qinglong.plugin_package_management_quota_buckets"))
          .isTrue();
      assertThat(
              denied(
                  st, "INSERT INTO qinglong.project_members VALUES ('p', 'u', ARRAY[]::text[], 0)"))
          .isTrue();
      assertThat(denied(st, "UPDATE qinglong.plugin_package_proposals SET state = 'published'"))
          .isTrue();
    }
  }

  @Test
  void theBaseRolesHaveNoAccessToTheLeaseTables() throws SQLException {
    for (String role : PostgresLogins.ALL) {
      try (Connection c = connect(role);
          Statement st = c.createStatement()) {
        assertThat(denied(st, "SELECT * FROM qinglong.download_slot_leases")).as(role).isTrue();
        assertThat(denied(st, "SELECT * FROM qinglong.download_policy")).as(role).isTrue();
      }
    }
  }

  private static Connection connect(String role) throws SQLException {
    return DedicatedConnectionFactory.driverManager(
            database.jdbcUrl(), role, null, "t", Duration.ofSeconds(5), Duration.ofSeconds(5))
        .open();
  }

  private static boolean denied(Statement st, String sql) {
    try {
      st.execute(sql);
      return false;
    } catch (SQLException e) {
      return INSUFFICIENT_PRIVILEGE.equals(e.getSQLState());
    }
  }
}
