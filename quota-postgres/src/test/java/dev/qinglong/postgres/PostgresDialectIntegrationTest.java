package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** What PostgreSQL does differently: its lock, its clock and its permission arrays. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresDialectIntegrationTest {
  private static final PostgresDialect DIALECT = PostgresDialect.INSTANCE;
  private HikariDataSource pool;

  @BeforeAll
  void setUp() {
    pool = PostgresTestServer.get().createDatabase("dialect").newDataSource(2);
  }

  @AfterAll
  void tearDown() {
    pool.close();
  }

  /**
   * Quota windows run on the statement clock: clock_timestamp() moves on inside a transaction,
   * unlike now().
   */
  @Test
  void clockIsTheStatementsNotTheTransactionStart() throws SQLException {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      long first = now(c);
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_sleep(0.02)")) {
        ps.executeQuery().close();
      }
      long second = now(c);
      c.rollback();
      assertThat(second - first).isGreaterThanOrEqualTo(20);
      assertThat(first).isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis());
    }
  }

  @Test
  void permissionsAreATextArrayAndReadBack() throws SQLException {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT ?::text[], pg_typeof(?::text[])::text")) {
      DIALECT.setPermissions(ps, 1, List.of("model.invoke", "package.read"));
      DIALECT.setPermissions(ps, 2, List.of());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(DIALECT.getPermissions(rs, 1)).containsExactly("model.invoke", "package.read");
        assertThat(rs.getString(2)).isEqualTo("text[]");
      }
    }
  }

  /** JDBC binds each ? once, in the order JdbcDialect documents. */
  @Test
  void statementsTakeTheDocumentedNumberOfParameters() {
    assertThat(DIALECT.decideStatement().chars().filter(ch -> ch == '?').count()).isEqualTo(8);
  }

  private static long now(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + DIALECT.nowMs());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
