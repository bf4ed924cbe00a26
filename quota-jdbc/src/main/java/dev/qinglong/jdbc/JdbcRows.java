package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.modelquota.WindowRef;
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

  /** The row of {@code query} for parameters (project id, id), or null. */
  public static <T> T byKey(
      Connection c, String query, String projectId, String id, String what, RowMapper<T> mapper)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query)) {
      ps.setString(1, projectId);
      ps.setString(2, id);
      return one(ps, what, mapper);
    }
  }

  /** The row of {@code query} for parameters (project id, window start ms, window ms), or null. */
  public static <T> T byWindow(
      Connection c, String query, WindowRef window, String what, RowMapper<T> mapper)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query)) {
      ps.setString(1, window.projectId());
      ps.setLong(2, window.windowStartMs());
      ps.setLong(3, window.windowMs());
      return one(ps, what, mapper);
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

  /** {@code ?, ?, …, ?}: {@code n} statement parameters. */
  public static String parameters(int n) {
    return String.join(", ", java.util.Collections.nCopies(n, "?"));
  }
}
