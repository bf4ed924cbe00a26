package dev.qinglong.testkit.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Needs a real PostgreSQL, provided as {@link PostgresTestServer} says (it never skips). */
class PostgresTestServerTest {

  private static PostgresTestServer server;

  @BeforeAll
  static void provision() {
    server = PostgresTestServer.get();
  }

  @Test
  void isOneServerPerJvm() {
    assertThat(PostgresTestServer.get()).isSameAs(server);
    assertThat(server.source()).isIn("url", "testcontainers", "local-binaries");
  }

  @Test
  void createsDistinctDatabasesInKolkataTime() throws SQLException {
    TestDatabase first = server.createDatabase("Kit-Test");
    TestDatabase second = server.createDatabase("Kit-Test");

    assertThat(first.name()).isNotEqualTo(second.name()).startsWith("kit_test_");
    assertThat(first.jdbcUrl()).isNotEqualTo(second.jdbcUrl());

    try (HikariDataSource firstPool = first.newDataSource(2);
        HikariDataSource secondPool = second.newDataSource(2)) {
      for (HikariDataSource pool : new HikariDataSource[] {firstPool, secondPool}) {
        assertThat(queryString(pool, "SELECT 1")).isEqualTo("1");
        assertThat(queryString(pool, "SHOW timezone")).isEqualTo("Asia/Kolkata");
      }
      assertThat(queryString(firstPool, "SELECT current_database()")).isEqualTo(first.name());
      assertThat(queryString(secondPool, "SELECT current_database()")).isEqualTo(second.name());

      // Really separate databases: a table created in one is absent from the other.
      execute(firstPool, "CREATE TABLE only_in_first (id int)");
      assertThat(queryString(firstPool, "SELECT to_regclass('only_in_first')::text"))
          .isEqualTo("only_in_first");
      assertThat(queryString(secondPool, "SELECT to_regclass('only_in_first')::text")).isNull();

      // The database default too, for clients that do not send their own time zone (psql).
      assertThat(databaseSettings(firstPool, first.name())).contains("TimeZone=Asia/Kolkata");
      assertThat(databaseSettings(secondPool, second.name())).contains("TimeZone=Asia/Kolkata");
    }
  }

  @Test
  void sanitisesAndBoundsNames() {
    TestDatabase database = server.createDatabase("Über/Long Prefix " + "x".repeat(100));

    assertThat(database.name()).matches("[a-z0-9_]{1,63}").startsWith("_ber_long_prefix_x");
    assertThat(PostgresTestServer.uniqueName("42 answers")).startsWith("db_42_answers_");
  }

  @Test
  void pointsUrlsAtOtherDatabasesOfTheSameServer() {
    TestDatabase database = server.createDatabase("url_test");

    String other = database.jdbcUrlFor("postgres");

    assertThat(other)
        .isEqualTo(database.jdbcUrl().replace("/" + database.name(), "/postgres"))
        .doesNotContain(database.name());
  }

  private static String queryString(HikariDataSource pool, String sql) throws SQLException {
    try (Connection connection = pool.getConnection();
        Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery(sql)) {
      assertThat(row.next()).isTrue();
      return row.getString(1);
    }
  }

  private static void execute(HikariDataSource pool, String sql) throws SQLException {
    try (Connection connection = pool.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static String databaseSettings(HikariDataSource pool, String name) throws SQLException {
    try (Connection connection = pool.getConnection();
        PreparedStatement statement =
            connection.prepareStatement(
                "SELECT array_to_string(s.setconfig, ',') FROM pg_db_role_setting s"
                    + " JOIN pg_database d ON d.oid = s.setdatabase"
                    + " WHERE d.datname = ? AND s.setrole = 0")) {
      statement.setString(1, name);
      try (ResultSet row = statement.executeQuery()) {
        assertThat(row.next()).isTrue();
        return row.getString(1);
      }
    }
  }
}
