package dev.qinglong.postgres.leases;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.gateway.lease.LeaseTimings;
import dev.qinglong.postgres.PostgresLogins;
import dev.qinglong.testkit.TcpProxy;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fresh database with the shared-download schema, migrated by the owner as in production; leases
 * connect as {@code ql3_reader}, directly or through a {@link TcpProxy}.
 *
 * <p>This module does not depend on the base schema's module ({@code quota-postgres} depends on
 * this one), so the fixture lays down a stand-in for what the base migrations leave behind before
 * the shared-download migrations run: schema {@value GatewayMigrations#SCHEMA} with a base table in
 * it, the other {@code ql3_*} login roles with {@code USAGE} on the schema and a grant on that
 * table, and nothing for {@code PUBLIC}. Statements below mirror the base migration's.
 */
final class GatewayFixture implements AutoCloseable {
  /** The base schema's login roles, as {@code PostgresLogins.ALL} names them. */
  static final List<String> BASE_ROLES =
      List.of("ql3_admin", "ql3_package_manager", "ql3_package_executor", "ql3_runtime");

  /** A table of the base schema that every base role may read. */
  static final String BASE_TABLE = GatewayMigrations.SCHEMA + ".base_schema_stand_in";

  private static final Pattern URL =
      Pattern.compile("jdbc:postgresql://([^/:]+)(?::(\\d+))?/([^?]+)(\\?.*)?");

  private final TestDatabase database;
  private final HikariDataSource owner;
  private final String host;
  private final int port;
  private final String databaseName;
  private final List<TcpProxy> proxies = new CopyOnWriteArrayList<>();

  GatewayFixture(String name) {
    database = PostgresTestServer.get().createDatabase(name);
    owner = database.newDataSource(2);
    for (String role : BASE_ROLES) {
      createRoleIfMissing(role);
    }
    PostgresLogins.bootstrap(owner);
    createBaseSchemaStandIn();
    GatewayMigrations.migrate(owner);
    Matcher m = URL.matcher(database.jdbcUrl());
    if (!m.matches()) {
      throw new IllegalStateException("unexpected test JDBC URL " + database.jdbcUrl());
    }
    host = m.group(1);
    port = m.group(2) == null ? 5432 : Integer.parseInt(m.group(2));
    databaseName = m.group(3);
  }

  /** Roles are cluster-wide and other test databases create them too: tolerate the race. */
  private void createRoleIfMissing(String role) {
    execute(
        """
        DO $$
        BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%1$s') THEN
            CREATE ROLE %1$s LOGIN NOINHERIT NOCREATEDB NOCREATEROLE;
          END IF;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
          NULL;
        END
        $$
        """
            .formatted(role));
  }

  private void createBaseSchemaStandIn() {
    String roles = String.join(", ", BASE_ROLES);
    execute("CREATE SCHEMA IF NOT EXISTS " + GatewayMigrations.SCHEMA);
    execute("CREATE TABLE " + BASE_TABLE + " (id bigint PRIMARY KEY)");
    // The base objects the shared-download migrations grant on to ql3_reader (V2): their shape
    // matters only as far as the grants name columns.
    String schema = GatewayMigrations.SCHEMA;
    execute("CREATE TABLE " + schema + ".project_members (project_id text, user_id text)");
    execute(
        "CREATE TABLE "
            + schema
            + ".plugin_package_proposals (project_id text, artifact_digest text, state text,"
            + " action_ref text)");
    execute("CREATE TABLE " + schema + ".flyway_schema_history (version text)");
    execute("REVOKE ALL ON SCHEMA " + GatewayMigrations.SCHEMA + " FROM PUBLIC");
    execute("REVOKE ALL ON ALL TABLES IN SCHEMA " + GatewayMigrations.SCHEMA + " FROM PUBLIC");
    execute("GRANT USAGE ON SCHEMA " + GatewayMigrations.SCHEMA + " TO " + roles);
    execute("GRANT SELECT ON " + BASE_TABLE + " TO " + roles);
  }

  HikariDataSource owner() {
    return owner;
  }

  TestDatabase database() {
    return database;
  }

  /** Dedicated connections as ql3_reader, straight to the server. */
  DedicatedConnectionFactory reader(LeaseTimings timings) {
    return PostgresDownloadLease.connections(
        "jdbc:postgresql://" + host + ":" + port + "/" + databaseName,
        PostgresLogins.READER,
        null,
        timings);
  }

  /** A proxy to the server; closed with the fixture. */
  TcpProxy proxy() {
    try {
      TcpProxy proxy = new TcpProxy(host, port);
      proxies.add(proxy);
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The database's JDBC URL through {@code proxy}. */
  String urlThrough(TcpProxy proxy) {
    return "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + databaseName;
  }

  /** Dedicated connections as ql3_reader through {@code proxy}. */
  DedicatedConnectionFactory reader(LeaseTimings timings, TcpProxy proxy) {
    return PostgresDownloadLease.connections(
        "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + databaseName,
        PostgresLogins.READER,
        null,
        timings);
  }

  /** Runs a statement as the owner. */
  void execute(String sql) {
    try (Connection c = owner.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The first column of the first row of a query, as the owner. */
  Object queryOne(String sql, Object... params) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getObject(1) : null;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws IOException {
    for (TcpProxy proxy : proxies) {
      proxy.close();
    }
    owner.close();
  }
}
