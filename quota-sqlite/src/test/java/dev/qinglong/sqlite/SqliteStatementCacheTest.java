package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.jdbc4.JDBC4PreparedStatement;

/**
 * The pool of {@link SqliteDatabase#open} keeps prepared statements ({@link
 * StatementCachingDataSource}): a closed statement is compiled once and handed out again, clean —
 * no parameters, no open read — and the connection keeps its pragmas.
 */
class SqliteStatementCacheTest {
  @TempDir Path dir;

  @Test
  void aStatementItsCallerClosedIsHandedOutAgainWithoutItsParameters() throws SQLException {
    try (HikariDataSource pool = SqliteDatabase.open(dir.resolve("cache.db"))) {
      JDBC4PreparedStatement first;
      try (Connection c = pool.getConnection();
          PreparedStatement ps = c.prepareStatement("SELECT ?1")) {
        first = ps.unwrap(JDBC4PreparedStatement.class);
        ps.setInt(1, 5);
        assertThat(single(ps)).isEqualTo("5");
      }
      try (Connection c = pool.getConnection();
          PreparedStatement ps = c.prepareStatement("SELECT ?1")) {
        assertThat(ps.unwrap(JDBC4PreparedStatement.class)).isSameAs(first);
        // The earlier caller's 5 is gone: an unbound parameter is NULL.
        assertThat(single(ps)).isNull();
        ps.setString(1, "again");
        assertThat(single(ps)).isEqualTo("again");
      }
    }
  }

  @Test
  void twoOpenStatementsOfOneTextAreTwoStatementsAndAClosedHandleStaysClosed() throws SQLException {
    try (HikariDataSource pool = SqliteDatabase.open(dir.resolve("two.db"));
        Connection c = pool.getConnection()) {
      PreparedStatement a = c.prepareStatement("SELECT ?1");
      PreparedStatement b = c.prepareStatement("SELECT ?1");
      assertThat(a.unwrap(JDBC4PreparedStatement.class))
          .isNotSameAs(b.unwrap(JDBC4PreparedStatement.class));
      a.setInt(1, 1);
      b.setInt(1, 2);
      assertThat(single(a)).isEqualTo("1");
      assertThat(single(b)).isEqualTo("2");
      a.close();
      assertThat(a.isClosed()).isTrue();
      assertThatThrownBy(a::executeQuery).isInstanceOf(SQLException.class);
      // b is still the caller's, open and usable.
      assertThat(single(b)).isEqualTo("2");
      b.close();
    }
  }

  @Test
  void closingAStatementWithUnreadRowsEndsItsRead() throws SQLException {
    Path file = dir.resolve("read.db");
    try (HikariDataSource pool = SqliteDatabase.open(file);
        HikariDataSource other = SqliteDatabase.open(file);
        Connection c = pool.getConnection()) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE t (v INTEGER)");
        s.execute("INSERT INTO t VALUES (1), (2)");
      }
      PreparedStatement ps = c.prepareStatement("SELECT v FROM t ORDER BY v");
      ResultSet rs = ps.executeQuery();
      assertThat(rs.next()).isTrue();
      // Closed with a row unread: the SQLite statement must be reset, or it keeps its snapshot.
      ps.close();

      try (Connection o = other.getConnection();
          Statement s = o.createStatement()) {
        s.execute("INSERT INTO t VALUES (3)");
      }
      try (PreparedStatement count = c.prepareStatement("SELECT count(*) FROM t")) {
        assertThat(single(count)).isEqualTo("3");
      }
      // The kept statement runs again from the start.
      try (PreparedStatement again = c.prepareStatement("SELECT v FROM t ORDER BY v");
          ResultSet all = again.executeQuery()) {
        assertThat(all.next()).isTrue();
        assertThat(all.getInt(1)).isEqualTo(1);
      }
    }
  }

  @Test
  void theConnectionKeepsItsPragmas() throws SQLException {
    try (HikariDataSource pool = SqliteDatabase.open(dir.resolve("pragmas.db"));
        Connection c = pool.getConnection()) {
      assertThat(pragma(c, "journal_mode")).isEqualTo("wal");
      assertThat(pragma(c, "synchronous")).isEqualTo("1"); // NORMAL
      assertThat(pragma(c, "foreign_keys")).isEqualTo("1");
      assertThat(pragma(c, "busy_timeout")).isEqualTo("10000");
    }
  }

  @Test
  void closingThePoolClosesTheKeptStatements() throws SQLException {
    JDBC4PreparedStatement kept;
    try (HikariDataSource pool = SqliteDatabase.open(dir.resolve("close.db"))) {
      try (Connection c = pool.getConnection();
          PreparedStatement ps = c.prepareStatement("SELECT 1")) {
        kept = ps.unwrap(JDBC4PreparedStatement.class);
        assertThat(single(ps)).isEqualTo("1");
      }
      assertThat(kept.isClosed()).isFalse();
    }
    assertThat(kept.isClosed()).isTrue();
  }

  private static String pragma(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA " + name)) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }

  private static String single(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }
}
