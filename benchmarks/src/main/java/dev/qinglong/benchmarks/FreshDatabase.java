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
import java.util.List;

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
      if (statements) {
        try (PreparedStatement st =
            c.prepareStatement(
                "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s"
                    + " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ?")) {
          st.setString(1, database.name());
          try (ResultSet rs = st.executeQuery()) {
            rs.next();
            calls = rs.getLong(1);
          }
        }
      }
      return new Counters(commits, rollbacks, calls);
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

  /** Cumulative counters; {@code statements} is -1 without pg_stat_statements. */
  record Counters(long commits, long rollbacks, long statements) {
    Counters minus(Counters before) {
      return new Counters(
          commits - before.commits,
          rollbacks - before.rollbacks,
          statements < 0 || before.statements < 0 ? -1 : statements - before.statements);
    }
  }
}
