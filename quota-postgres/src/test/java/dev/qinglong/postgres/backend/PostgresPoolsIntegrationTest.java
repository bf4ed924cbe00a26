package dev.qinglong.postgres.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Every component pool connection carries the configured bounds: the server-side statement and lock
 * timeouts, the driver's socket timeout, TCP keep-alive; and settings that could hang a request for
 * minutes are refused.
 */
class PostgresPoolsIntegrationTest {

  @Test
  void componentConnectionsCarryTheTimeouts() throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("pg_pools");
    PostgresSettings.Timeouts timeouts =
        new PostgresSettings.Timeouts(
            Duration.ofSeconds(2),
            Duration.ofSeconds(7),
            Duration.ofMillis(1500),
            Duration.ofMillis(700));
    try (HikariDataSource pool =
            PostgresPools.component(
                "qinglong-test",
                db.jdbcUrl(),
                new PostgresSettings.Login(db.username(), db.password()),
                1,
                timeouts);
        Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      assertThat(show(s, "statement_timeout")).isEqualTo("1500ms");
      assertThat(show(s, "lock_timeout")).isEqualTo("700ms");
      assertThat(show(s, "application_name")).isEqualTo("qinglong-test");
      assertThat(c.getNetworkTimeout()).isEqualTo(7_000);
      assertThat(pool.getDataSourceProperties().getProperty("tcpKeepAlive")).isEqualTo("true");
      assertThat(pool.getDataSourceProperties().getProperty("connectTimeout")).isEqualTo("2");
      // The server cancels a statement over the bound: 57014 query_canceled, the pool goes on.
      assertThatThrownBy(() -> s.execute("SELECT pg_sleep(5)"))
          .isInstanceOfSatisfying(
              SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("57014"));
      assertThat(show(s, "statement_timeout")).isEqualTo("1500ms");
    }
  }

  @Test
  void boundsThatCouldHangARequestAreRefused() {
    assertThatThrownBy(
            () ->
                new PostgresSettings.Timeouts(
                    Duration.ofSeconds(3),
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(5),
                    Duration.ZERO))
        .hasMessageContaining("socket-timeout must be longer than .statement-timeout");
    assertThatThrownBy(
            () ->
                new PostgresSettings.Timeouts(
                    Duration.ofSeconds(3), Duration.ZERO, Duration.ZERO, Duration.ZERO))
        .hasMessageContaining("socket-timeout must be at least 1s");
    assertThatThrownBy(
            () ->
                new PostgresSettings.Timeouts(
                    Duration.ZERO, Duration.ofSeconds(10), Duration.ZERO, Duration.ZERO))
        .hasMessageContaining("connect-timeout must be at least 1s");
    assertThat(PostgresSettings.Timeouts.DEFAULTS.socketSeconds()).isEqualTo(10);
  }

  private static String show(Statement s, String name) throws SQLException {
    try (ResultSet rs = s.executeQuery("SHOW " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
