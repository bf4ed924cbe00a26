package dev.qinglong.postgres.leases;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;

/**
 * Opens dedicated PostgreSQL connections that no pool ever sees (a saturated pool must never delay
 * a lease renewal: docs/design.md#leases). Each connection is held by one lease, barrier or lock
 * from start to stop and then closed.
 */
@FunctionalInterface
public interface DedicatedConnectionFactory {

  /**
   * Opens a new connection in auto-commit mode.
   *
   * @throws SQLException if it cannot be opened
   */
  Connection open() throws SQLException;

  /**
   * Connections through {@link DriverManager}. Connecting is bounded by {@code timeout}; every
   * statement's wait on the network by {@code socketTimeout}, so a cut connection fails instead of
   * hanging forever.
   *
   * @param jdbcUrl the database URL
   * @param username the login role, e.g. {@code ql3_reader}
   * @param password its password, or {@code null} for none
   * @param applicationName shown in {@code pg_stat_activity}
   * @param timeout bound on connecting, at least 1 s (rounded up to seconds)
   * @param socketTimeout bound on one network read, at least 1 s (rounded up to seconds)
   */
  static DedicatedConnectionFactory driverManager(
      String jdbcUrl,
      String username,
      String password,
      String applicationName,
      Duration timeout,
      Duration socketTimeout) {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Properties props = new Properties();
    props.setProperty("user", Objects.requireNonNull(username, "username"));
    if (password != null) {
      props.setProperty("password", password);
    }
    props.setProperty("ApplicationName", applicationName);
    props.setProperty("connectTimeout", Long.toString(ceilSeconds(timeout)));
    props.setProperty("loginTimeout", Long.toString(ceilSeconds(timeout)));
    props.setProperty("socketTimeout", Long.toString(ceilSeconds(socketTimeout)));
    props.setProperty("tcpKeepAlive", "true");
    return () -> {
      Connection c = DriverManager.getConnection(jdbcUrl, props);
      c.setAutoCommit(true);
      return c;
    };
  }

  /** {@code d} in whole seconds, rounded up, at least 1: as the driver takes its timeouts. */
  static long ceilSeconds(Duration d) {
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }
}
