package dev.qinglong.gateway.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.gateway.lease.LeaseTimings;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.PostgresRoles;
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
 * A fresh database with the base schema and the shared-download schema, migrated by the owner as in
 * production; leases connect as {@code ql3_reader}, directly or through a {@link TcpProxy}.
 */
final class GatewayFixture implements AutoCloseable {
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
    PostgresRoles.bootstrap(owner);
    GatewayRoles.bootstrap(owner);
    PostgresMigrations.migrate(owner);
    GatewayMigrations.migrate(owner);
    Matcher m = URL.matcher(database.jdbcUrl());
    if (!m.matches()) {
      throw new IllegalStateException("unexpected test JDBC URL " + database.jdbcUrl());
    }
    host = m.group(1);
    port = m.group(2) == null ? 5432 : Integer.parseInt(m.group(2));
    databaseName = m.group(3);
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
        GatewayRoles.READER,
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
        GatewayRoles.READER,
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
