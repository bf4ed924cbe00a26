package dev.qinglong.app.downloads;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.gateway.postgres.DedicatedConnectionFactory;
import dev.qinglong.gateway.postgres.GatewayMigrations;
import dev.qinglong.gateway.postgres.GatewayRoles;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.PostgresRoles;
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
    PostgresRoles.bootstrap(owner);
    GatewayRoles.bootstrap(owner);
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

  @Test
  void theReaderSeesNoGovernanceOrQuotaData() throws SQLException {
    try (Connection c = connect(GatewayRoles.READER);
        Statement st = c.createStatement()) {
      st.execute("SELECT count(*) FROM qinglong.download_slot_leases");
      assertThat(denied(st, "SELECT * FROM qinglong.plugin_package_proposals")).isTrue();
      assertThat(denied(st, "SELECT * FROM qinglong.plugin_package_management_quota_buckets"))
          .isTrue();
      assertThat(denied(st, "SELECT * FROM qinglong.project_members")).isTrue();
    }
  }

  @Test
  void theBaseRolesHaveNoAccessToTheLeaseTables() throws SQLException {
    for (String role : PostgresRoles.ALL) {
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
