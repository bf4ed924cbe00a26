package dev.qinglong.app.support;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads (and, to tamper, writes) the AI tables behind the app's back as the owner: which exist, and
 * every row of them as text, to prove what changed and what did not.
 */
public final class AiInspector {
  /** Every AI table with its primary key, the order of a snapshot. */
  public static final String[][] TABLES = {
    {"model_invocation_policies", "project_id, model_id, revision"},
    {"model_project_quota_policies", "project_id, revision"},
    {"model_step_runs", "project_id, step_run_id"},
    {"model_invocation_reservations", "project_id, invocation_id"},
    {"model_invocation_starts", "project_id, invocation_id"},
    {"model_invocation_completions", "project_id, invocation_id"},
    {"model_usage_ledger", "project_id, ledger_seq"},
    {"model_invocation_settlements", "project_id, invocation_id"},
  };

  private final String url;
  private final String user;
  private final String password;
  private final String schema;

  private AiInspector(String url, String user, String password, String schema) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.schema = schema;
  }

  public static AiInspector sqlite(java.nio.file.Path dataDir) {
    return new AiInspector(
        "jdbc:sqlite:" + dataDir.resolve("qinglong.db").toAbsolutePath(), null, null, null);
  }

  public static AiInspector postgres(String url, String user, String password) {
    return new AiInspector(url, user, password == null ? "" : password, "qinglong");
  }

  private Connection connect() throws SQLException {
    return user == null
        ? DriverManager.getConnection(url)
        : DriverManager.getConnection(url, user, password);
  }

  private String table(String name) {
    return schema == null ? name : schema + "." + name;
  }

  /** The names of the tables (and the AI history table) that exist, lower case, sorted. */
  public List<String> existingAiTables() {
    List<String> found = new ArrayList<>();
    try (Connection c = connect()) {
      DatabaseMetaData meta = c.getMetaData();
      try (ResultSet rs = meta.getTables(null, schema, "%", new String[] {"TABLE"})) {
        while (rs.next()) {
          String name = rs.getString("TABLE_NAME").toLowerCase(Locale.ROOT);
          if (name.startsWith("model_") || name.equals("flyway_ai_schema_history")) {
            found.add(name);
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    found.sort(null);
    return found;
  }

  /** Every row of every AI table, as text. */
  public String snapshot() {
    StringBuilder out = new StringBuilder();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      for (String[] t : TABLES) {
        out.append("## ").append(t[0]).append('\n');
        try (ResultSet rs = st.executeQuery("SELECT * FROM " + table(t[0]) + " ORDER BY " + t[1])) {
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            for (int i = 1; i <= columns; i++) {
              out.append(rs.getString(i)).append('|');
            }
            out.append('\n');
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out.toString();
  }

  /** One value as text, or null. {@code sql} names AI tables without a schema prefix. */
  public String queryOne(String sql, Object... args) {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement(qualify(sql))) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs an update as the owner (tampering); returns the row count. */
  public int ownerUpdate(String sql, Object... args) {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement(qualify(sql))) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private String qualify(String sql) {
    if (schema == null) {
      return sql;
    }
    String out =
        sql.replaceAll(
            "(?<![.\\w])flyway_ai_schema_history\\b", schema + ".flyway_ai_schema_history");
    for (String[] t : TABLES) {
      out = out.replaceAll("(?<![.\\w])" + t[0] + "\\b", schema + "." + t[0]);
    }
    return out;
  }
}
