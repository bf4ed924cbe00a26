package dev.qinglong.app.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** Reads the store behind the app's back, to prove what changed and what did not. */
public final class StoreInspector {
  private static final String[][] TABLES = {
    {"project_members", "project_id, user_id"},
    {"plugin_package_proposals", "project_id, proposal_id"},
    {"plugin_package_approvals", "project_id, approval_id"},
    {"plugin_package_approval_decisions", "project_id, approval_id, decided_by"},
    {"plugin_package_approval_policies", "project_id, revision"},
    {"plugin_package_management_quota_buckets", "project_id, subject_type, subject_id, operation"},
    {"management_quota_limit_revisions", "project_id, user_id, revision"},
    {"management_quota_limits", "project_id, user_id, operation, revision"},
  };

  private final String url;
  private final String user;
  private final String password;
  private final String prefix;

  public StoreInspector(String url, String user, String password, String schemaPrefix) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.prefix = schemaPrefix;
  }

  public static StoreInspector sqlite(java.nio.file.Path dataDir) {
    return new StoreInspector(
        "jdbc:sqlite:" + dataDir.resolve("qinglong.db").toAbsolutePath(), null, null, "");
  }

  private Connection connect() throws SQLException {
    return user == null
        ? DriverManager.getConnection(url)
        : DriverManager.getConnection(url, user, password);
  }

  /** Every row of every governance, policy and quota table (limits included), as text. */
  public String snapshot() {
    StringBuilder out = new StringBuilder();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      for (String[] table : TABLES) {
        out.append("## ").append(table[0]).append('\n');
        try (ResultSet rs =
            st.executeQuery("SELECT * FROM " + prefix + table[0] + " ORDER BY " + table[1])) {
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

  /**
   * Table, columns, order. Of a delivery only what the request that enqueued it wrote: the active
   * worker of a test app may be attempting it meanwhile (status, attempts, next attempt, claim,
   * last answer), which is not a change by the request under test.
   */
  private static final String[][] WEBHOOK_TABLES = {
    {"webhook_projects", "*", "project_id"},
    {"webhook_endpoints", "*", "project_id, webhook_id"},
    {"webhook_endpoint_events", "*", "project_id, webhook_id, event_type"},
    {
      "webhook_deliveries",
      "delivery_id, project_id, webhook_id, event_type, payload, created_at_ms, dedup_key",
      "delivery_id"
    },
  };

  /**
   * Every row of the webhook tables as text (secrets as the driver renders their bytes), of the
   * deliveries only the columns their request wrote.
   */
  public String webhookSnapshot() {
    StringBuilder out = new StringBuilder();
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      for (String[] table : WEBHOOK_TABLES) {
        out.append("## ").append(table[0]).append('\n');
        try (ResultSet rs =
            st.executeQuery(
                "SELECT " + table[1] + " FROM " + prefix + table[0] + " ORDER BY " + table[2])) {
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            for (int i = 1; i <= columns; i++) {
              Object v = rs.getObject(i);
              out.append(v instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : v)
                  .append('|');
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

  /** How many delivery rows the Project's webhooks have, of {@code eventType}. */
  public int webhookDeliveries(String projectId, String eventType) {
    try (Connection c = connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM "
                    + prefix
                    + "webhook_deliveries WHERE project_id = ? AND event_type = ?")) {
      ps.setString(1, projectId);
      ps.setString(2, eventType);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The consumed count of a bucket, 0 if there is none. */
  public int consumed(String projectId, String userId, String operation) {
    try (Connection c = connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT consumed_count FROM "
                    + prefix
                    + "plugin_package_management_quota_buckets WHERE project_id = ? AND"
                    + " subject_type = 'user' AND subject_id = ? AND operation = ?")) {
      ps.setString(1, projectId);
      ps.setString(2, userId);
      ps.setString(3, operation);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** How many buckets a project has. */
  public int buckets(String projectId) {
    try (Connection c = connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM "
                    + prefix
                    + "plugin_package_management_quota_buckets WHERE project_id = ?")) {
      ps.setString(1, projectId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The window start of a bucket (database clock, ms), or -1 if there is none. */
  public long windowStartedAtMs(String projectId, String userId, String operation) {
    try (Connection c = connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT window_started_at_ms FROM "
                    + prefix
                    + "plugin_package_management_quota_buckets WHERE project_id = ? AND"
                    + " subject_type = 'user' AND subject_id = ? AND operation = ?")) {
      ps.setString(1, projectId);
      ps.setString(2, userId);
      ps.setString(3, operation);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The database clock now, in epoch ms. */
  public long databaseNowMs() {
    String sql =
        url.startsWith("jdbc:sqlite:")
            ? "SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER)"
            : "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint";
    try (Connection c = connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
