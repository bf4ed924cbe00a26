package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What SQLite does differently, on an in-memory database (no schema needed). */
class SqliteDialectTest {
  private static final SqliteDialect DIALECT = SqliteDialect.INSTANCE;

  @Test
  void permissionsAreAJsonArrayOfWireNamesAndReadBack() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
        PreparedStatement ps = c.prepareStatement("SELECT ?")) {
      DIALECT.setPermissions(ps, 1, List.of("model.invoke", "package.read"));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("[\"model.invoke\",\"package.read\"]");
        assertThat(DIALECT.getPermissions(rs, 1)).containsExactly("model.invoke", "package.read");
      }
    }
  }

  @Test
  void noPermissionsIsAnEmptyArray() throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
        PreparedStatement ps = c.prepareStatement("SELECT ?")) {
      DIALECT.setPermissions(ps, 1, List.of());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("[]");
        assertThat(DIALECT.getPermissions(rs, 1)).isEmpty();
      }
    }
  }

  @Test
  void clockIsEpochMilliseconds() throws SQLException {
    long before = System.currentTimeMillis();
    long now;
    try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
        PreparedStatement ps = c.prepareStatement("SELECT " + DIALECT.nowMs());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      now = rs.getLong(1);
    }
    assertThat(now).isBetween(before - 1_000, System.currentTimeMillis() + 1_000);
  }

  /** Numbered parameters must cover exactly the positions JdbcDialect documents. */
  @Test
  void statementsUseTheDocumentedParameterPositions() {
    assertThat(parameterNumbers(DIALECT.decideStatement())).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
  }

  private static TreeSet<Integer> parameterNumbers(String sql) {
    TreeSet<Integer> numbers = new TreeSet<>();
    Matcher m = Pattern.compile("\\?(\\d+)").matcher(sql);
    while (m.find()) {
      numbers.add(Integer.parseInt(m.group(1)));
    }
    assertThat(sql.replaceAll("\\?\\d+", "")).doesNotContain("?");
    return numbers;
  }
}
