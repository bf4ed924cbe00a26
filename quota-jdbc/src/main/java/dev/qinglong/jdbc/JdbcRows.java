package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** Reading rows into domain records, and binding nullable values, for every JDBC store. */
public final class JdbcRows {
  private JdbcRows() {}

  @FunctionalInterface
  public interface RowMapper<T> {
    T map(ResultSet row) throws SQLException;
  }

  /** The first row of {@code query} for {@code parameters} ({@link #bind}), or null. */
  public static <T> T one(
      Connection c, String query, String what, RowMapper<T> mapper, Object... parameters)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query)) {
      bind(ps, parameters);
      return one(ps, what, mapper);
    }
  }

  /** Every row of {@code query} for {@code parameters} ({@link #bind}), in order. */
  public static <T> List<T> all(
      Connection c, String query, String what, RowMapper<T> mapper, Object... parameters)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query)) {
      bind(ps, parameters);
      return all(ps, what, mapper);
    }
  }

  /** Runs the update {@code sql} for {@code parameters} ({@link #bind}); the row count. */
  public static int update(Connection c, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, parameters);
      return ps.executeUpdate();
    }
  }

  /**
   * Binds {@code values} from parameter 1 on: a {@link String} as text, a {@link Long} or {@link
   * Integer} as such, null as a text NULL (a nullable number needs {@link #setNullableLong}), and
   * anything else as the driver's {@link PreparedStatement#setObject} binds it.
   */
  public static void bind(PreparedStatement ps, Object... values) throws SQLException {
    for (int i = 0; i < values.length; i++) {
      Object value = values[i];
      if (value == null || value instanceof String) {
        ps.setString(i + 1, (String) value);
      } else if (value instanceof Long l) {
        ps.setLong(i + 1, l);
      } else if (value instanceof Integer n) {
        ps.setInt(i + 1, n);
      } else {
        ps.setObject(i + 1, value);
      }
    }
  }

  /** The first row of the bound statement {@code ps}, or null. */
  public static <T> T one(PreparedStatement ps, String what, RowMapper<T> mapper)
      throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? mapped(what, rs, mapper) : null;
    }
  }

  /** Every row of the bound statement {@code ps}, in order. */
  public static <T> List<T> all(PreparedStatement ps, String what, RowMapper<T> mapper)
      throws SQLException {
    List<T> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(mapped(what, rs, mapper));
      }
    }
    return out;
  }

  /** A row the domain refuses to represent is corrupt: the store cannot answer (fail closed). */
  private static <T> T mapped(String what, ResultSet rs, RowMapper<T> mapper) throws SQLException {
    try {
      return mapper.map(rs);
    } catch (ValidationException | IllegalStateException | IllegalArgumentException e) {
      throw new StoreUnavailableException("corrupt " + what + " row", e);
    }
  }

  public static void setNullableLong(PreparedStatement ps, int index, Long value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, value);
    }
  }

  public static void setNullableInt(PreparedStatement ps, int index, Integer value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.INTEGER);
    } else {
      ps.setInt(index, value);
    }
  }

  public static Integer nullableInt(ResultSet rs, int index) throws SQLException {
    int value = rs.getInt(index);
    return rs.wasNull() ? null : value;
  }

  public static Long nullableLong(ResultSet rs, int index) throws SQLException {
    long value = rs.getLong(index);
    return rs.wasNull() ? null : value;
  }

  /** The database clock in epoch milliseconds ({@link JdbcDialect#nowMs}), read on {@code c}. */
  public static long nowMs(Connection c, JdbcDialect dialect) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + dialect.nowMs());
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new StoreUnavailableException("database clock unreadable");
      }
      return rs.getLong(1);
    }
  }

  /** {@code limit}, a page size: at least 1. */
  static int requireLimit(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, was " + limit);
    }
    return limit;
  }

  /** {@code ?, ?, …, ?}: {@code n} statement parameters. */
  public static String parameters(int n) {
    return String.join(", ", java.util.Collections.nCopies(n, "?"));
  }
}
