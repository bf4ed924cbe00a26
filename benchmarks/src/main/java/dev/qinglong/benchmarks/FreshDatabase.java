package dev.qinglong.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.postgres.PostgresLogins;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A new PostgreSQL database for one workload (from the test kit's server: {@code
 * QINGLONG_TEST_PG_URL}, Docker or local binaries), its counters, and its removal.
 *
 * <p>Commits come from {@code pg_stat_database.xact_commit} of this database only; statements from
 * {@code pg_stat_statements} when the server preloads it (else they are not reported). PostgreSQL
 * publishes a backend's transaction counters at most once a second while it is busy, so a delta
 * over a timed phase of a few seconds is approximate: what the warm-up had not yet published is
 * counted in, what the phase had not yet published is left out; both are about the same at a steady
 * rate.
 */
final class FreshDatabase implements AutoCloseable {
  private final TestDatabase database;
  private final boolean statements;

  FreshDatabase(String prefix) throws SQLException {
    this.database = PostgresTestServer.get().createDatabase("bench_" + prefix);
    this.statements = statementsAvailable();
  }

  TestDatabase database() {
    return database;
  }

  String name() {
    return database.name();
  }

  /** A pool as the server's administrative user (the schema owner in these benchmarks). */
  HikariDataSource ownerPool(int size) {
    return database.newDataSource(size);
  }

  /**
   * Bootstraps the logins, applies the migrations as the owner (with the model-invocation quota's
   * if {@code modelQuota}) and makes each of {@code users} a member of each of {@code projects}
   * holding {@code permissions}, by SQL before the app starts.
   */
  void migrateWithMembers(
      boolean modelQuota, List<String> projects, List<String> users, String... permissions)
      throws SQLException {
    try (HikariDataSource owner = ownerPool(2)) { // Flyway takes two connections
      PostgresLogins.bootstrap(owner);
      PostgresMigrations.migrate(owner);
      if (modelQuota) {
        PostgresMigrations.migrateAi(owner);
      }
      try (Connection c = owner.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO qinglong.project_members (project_id, user_id, permissions,"
                      + " updated_at_ms) SELECT p, u, ?, 0"
                      + " FROM unnest(?::text[]) AS p, unnest(?::text[]) AS u")) {
        ps.setArray(1, c.createArrayOf("text", permissions));
        ps.setArray(2, c.createArrayOf("text", projects.toArray()));
        ps.setArray(3, c.createArrayOf("text", users.toArray()));
        ps.executeUpdate();
      }
    }
  }

  /**
   * Collects the planner's statistics of every table ({@code ANALYZE}), as autovacuum does in
   * production within a minute of a table's growth. Without it a workload's timed phase, which
   * starts seconds after its tables were created empty, would run on plans made for empty tables
   * (PostgreSQL keeps a prepared statement's generic plan until the statistics change), e.g. an
   * index scan over a whole Project's reservations where the primary key finds one row.
   */
  void analyze() throws SQLException {
    try (Connection c =
            DriverManager.getConnection(
                database.jdbcUrl(), database.username(), database.password());
        Statement s = c.createStatement()) {
      s.execute("ANALYZE");
    }
  }

  /** Counters of this database now. */
  Counters counters() throws SQLException {
    try (Connection c = admin();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = ?")) {
      ps.setString(1, database.name());
      long commits;
      long rollbacks;
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        commits = rs.getLong(1);
        rollbacks = rs.getLong(2);
      }
      long calls = -1;
      Map<String, QueryStats> byQuery = new HashMap<>();
      if (statements) {
        calls = 0;
        try (PreparedStatement st =
            c.prepareStatement(
                "SELECT s.queryid, s.query, s.calls, s.total_exec_time, s.rows"
                    + " FROM pg_stat_statements s"
                    + " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ?")) {
          st.setString(1, database.name());
          try (ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
              QueryStats one =
                  new QueryStats(rs.getString(2), rs.getLong(3), rs.getDouble(4), rs.getLong(5));
              calls += one.calls();
              byQuery.merge(rs.getString(1), one, QueryStats::plus);
            }
          }
        }
      }
      return new Counters(commits, rollbacks, calls, byQuery);
    }
  }

  /**
   * The server's settings that decide what a commit costs. (The test kit hands out databases, not
   * its administrative URL: a throw-away database gives the URL of the server's {@code postgres}.)
   */
  static String serverSettings() throws SQLException {
    TestDatabase any = PostgresTestServer.get().createDatabase("bench_probe");
    try (Connection c =
            DriverManager.getConnection(
                any.jdbcUrlFor("postgres"), any.username(), any.password());
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT current_setting('server_version'), current_setting('fsync'),"
                    + " current_setting('synchronous_commit'), current_setting('wal_sync_method'),"
                    + " current_setting('shared_preload_libraries')")) {
      rs.next();
      String settings =
          "PostgreSQL %s, fsync=%s, synchronous_commit=%s, wal_sync_method=%s, pg_stat_statements %s"
              .formatted(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5).contains("pg_stat_statements") ? "loaded" : "not loaded");
      s.execute("DROP DATABASE IF EXISTS \"" + any.name() + "\"");
      return settings;
    }
  }

  private boolean statementsAvailable() throws SQLException {
    try (Connection c = admin();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('shared_preload_libraries')")) {
      rs.next();
      if (!rs.getString(1).contains("pg_stat_statements")) {
        return false;
      }
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  /** A connection to the administrative database: its own statements are not counted here. */
  private Connection admin() throws SQLException {
    return DriverManager.getConnection(
        database.jdbcUrlFor("postgres"), database.username(), database.password());
  }

  /** Drops the database (closing whatever still connects to it). */
  @Override
  public void close() throws SQLException {
    try (Connection c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS \"" + database.name() + "\" WITH (FORCE)");
    }
  }

  /**
   * Cumulative counters; {@code statements} is -1 without pg_stat_statements, {@code byQuery} its
   * rows by query id (empty without it).
   */
  record Counters(long commits, long rollbacks, long statements, Map<String, QueryStats> byQuery) {
    Counters minus(Counters before) {
      Map<String, QueryStats> delta = new HashMap<>();
      byQuery.forEach(
          (id, now) -> {
            QueryStats then = before.byQuery.get(id);
            QueryStats d = then == null ? now : now.minus(then);
            if (d.calls() > 0) {
              delta.put(id, d);
            }
          });
      return new Counters(
          commits - before.commits,
          rollbacks - before.rollbacks,
          statements < 0 || before.statements < 0 ? -1 : statements - before.statements,
          delta);
    }

    /**
     * The statements that took the most server time, at most {@code limit}, each with its calls and
     * milliseconds of execution per workload call: PostgreSQL's side of a call's cost.
     */
    List<Map<String, Object>> top(int limit, double perCall) {
      return byQuery.values().stream()
          .sorted(Comparator.comparingDouble(QueryStats::execMs).reversed())
          .limit(limit)
          .map(
              s -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("execMsPerCall", round(s.execMs() / perCall));
                m.put("callsPerCall", round(s.calls() / perCall));
                m.put("meanMs", round(s.execMs() / s.calls()));
                m.put("rowsPerExecution", round((double) s.rows() / s.calls()));
                m.put("query", oneLine(s.query()));
                return m;
              })
          .toList();
    }

    /** Server execution time per workload call, every statement of the database (ms). */
    double execMsPerCall(double perCall) {
      return byQuery.values().stream().mapToDouble(QueryStats::execMs).sum() / perCall;
    }

    private static double round(double v) {
      return Math.round(v * 1000) / 1000.0;
    }

    private static String oneLine(String query) {
      String q = query.replaceAll("\\s+", " ").trim();
      return q.length() > 200 ? q.substring(0, 200) + "…" : q;
    }
  }

  /** One {@code pg_stat_statements} row: calls, execution time (ms) and rows so far. */
  record QueryStats(String query, long calls, double execMs, long rows) {
    QueryStats plus(QueryStats other) {
      return new QueryStats(query, calls + other.calls, execMs + other.execMs, rows + other.rows);
    }

    QueryStats minus(QueryStats before) {
      return new QueryStats(
          query, calls - before.calls, execMs - before.execMs, rows - before.rows);
    }
  }
}
