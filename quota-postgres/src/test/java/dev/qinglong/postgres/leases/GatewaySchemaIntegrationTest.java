package dev.qinglong.postgres.leases;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.postgres.PostgresLogins;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shared-download schema lives beside the base schema with its own Flyway history, and {@code
 * ql3_reader} gets exactly what the leases need. The base schema is {@link GatewayFixture}'s
 * stand-in: this module cannot depend on the base schema's module.
 */
class GatewaySchemaIntegrationTest {
  private static GatewayFixture db;

  @BeforeAll
  static void setUp() {
    db = new GatewayFixture("gateway_schema");
  }

  @AfterAll
  static void tearDown() throws Exception {
    db.close();
  }

  @Test
  void theOwnHistoryIsAtItsRequiredVersionInANonEmptySchemaAndMigrateIsIdempotent()
      throws SQLException {
    assertThat(GatewayMigrations.appliedVersion(db.owner()))
        .isEqualTo(GatewayMigrations.REQUIRED_VERSION);
    // Its own history table, baselined at 0 beside the base tables that were there first.
    assertThat(
            db.queryOne(
                "SELECT count(*) FROM qinglong."
                    + GatewayMigrations.HISTORY_TABLE
                    + " WHERE version = '0' AND type = 'BASELINE'"))
        .isEqualTo(1L);
    assertThat(db.queryOne("SELECT to_regclass('" + GatewayFixture.BASE_TABLE + "') IS NOT NULL"))
        .isEqualTo(true);
    assertThat(GatewayMigrations.migrate(db.owner())).isZero();
    PostgresLogins.bootstrap(db.owner()); // repeatable
  }

  @Test
  void theReaderMayRunLeasesButNeitherDeleteNorChangeThePolicy() throws SQLException {
    try (Connection c = db.reader(PostgresDownloadLeaseIntegrationTest.FAST).open();
        Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO qinglong.download_slot_leases VALUES (9, gen_random_uuid(), 1,"
              + " clock_timestamp(), clock_timestamp(), clock_timestamp() + interval '1 s')");
      st.execute("UPDATE qinglong.download_slot_leases SET generation = 2 WHERE slot = 9");
      st.execute("SELECT count(*) FROM qinglong.download_policy");
      assertThat(denied(st, "DELETE FROM qinglong.download_slot_leases")).isTrue();
      assertThat(denied(st, "DELETE FROM qinglong.download_policy")).isTrue();
      assertThat(denied(st, "UPDATE qinglong.download_policy SET slots = 1")).isTrue();
      assertThat(denied(st, "CREATE TABLE qinglong.sneaky (x int)")).isTrue();
      // Nothing of the base schema: the reader sees no governance or quota data.
      assertThat(denied(st, "SELECT * FROM " + GatewayFixture.BASE_TABLE)).isTrue();
    }
  }

  @Test
  void otherRolesHaveNoAccessToTheLeaseTables() throws SQLException {
    for (String role : GatewayFixture.BASE_ROLES) {
      try (Connection c =
              DedicatedConnectionFactory.driverManager(
                      db.database().jdbcUrl(),
                      role,
                      null,
                      "t",
                      Duration.ofSeconds(5),
                      Duration.ofSeconds(5))
                  .open();
          Statement st = c.createStatement()) {
        // They may use the schema and read the base schema: the denials below are the tables'.
        st.execute("SELECT count(*) FROM " + GatewayFixture.BASE_TABLE);
        assertThat(denied(st, "SELECT * FROM qinglong.download_slot_leases")).as(role).isTrue();
        assertThat(denied(st, "SELECT * FROM qinglong.download_policy")).as(role).isTrue();
      }
    }
  }

  @Test
  void theSingletonPolicyRowCannotBeDuplicated() {
    db.execute(
        "INSERT INTO qinglong.download_policy VALUES (true, 10, 10, 1, clock_timestamp(), gen_random_uuid())"
            + " ON CONFLICT DO NOTHING");
    assertThatThrownBy(
            () ->
                db.execute(
                    "INSERT INTO qinglong.download_policy VALUES (false, 10, 10, 1, clock_timestamp(),"
                        + " gen_random_uuid())"))
        .isInstanceOf(IllegalStateException.class);
  }

  private static boolean denied(Statement st, String sql) {
    try {
      st.execute(sql);
      return false;
    } catch (SQLException e) {
      // 42501: insufficient_privilege.
      return "42501".equals(e.getSQLState());
    }
  }
}
