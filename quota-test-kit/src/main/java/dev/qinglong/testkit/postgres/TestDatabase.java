package dev.qinglong.testkit.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fresh database created by {@link PostgresTestServer#createDatabase(String)} for one test class
 * (or one test), owned by the server's administrative user.
 *
 * @param name the database name, {@code [a-z0-9_]}, at most 63 characters
 * @param jdbcUrl JDBC URL of the database, without credentials
 * @param username the administrative user that owns the database
 * @param password that user's password; empty (never {@code null}) when none is needed
 */
public record TestDatabase(String name, String jdbcUrl, String username, String password) {

  /** Makes pool names unique in logs when a test opens several pools to one database. */
  private static final AtomicInteger POOL_SEQUENCE = new AtomicInteger();

  public TestDatabase {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(password, "password");
  }

  /**
   * Opens a new, independent HikariCP pool to this database as {@link #username()}. Each call
   * returns a separate pool, so two "service instances" in one test do not share connections. The
   * caller closes the pool.
   *
   * <p>Every connection of the pool runs in the {@link PostgresTestServer#TEST_TIME_ZONE} session
   * time zone. Why this is set here and not only on the database: the PostgreSQL JDBC driver sends
   * the JVM's time zone in its startup packet, which overrides {@code ALTER DATABASE ... SET
   * timezone}. Connections opened by other means from {@link #jdbcUrl()} therefore run in the JVM's
   * time zone.
   *
   * @param maxPoolSize the maximum number of connections, at least 1
   * @return a started pool; connection failures surface here as HikariCP's exceptions
   * @throws IllegalArgumentException if {@code maxPoolSize} is less than 1
   */
  public HikariDataSource newDataSource(int maxPoolSize) {
    if (maxPoolSize < 1) {
      throw new IllegalArgumentException("maxPoolSize must be at least 1, was " + maxPoolSize);
    }
    HikariConfig config = new HikariConfig();
    config.setPoolName("test-" + name + "-" + POOL_SEQUENCE.incrementAndGet());
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(username);
    config.setPassword(password);
    config.setMaximumPoolSize(maxPoolSize);
    config.setConnectionInitSql("SET TIME ZONE '" + PostgresTestServer.TEST_TIME_ZONE + "'");
    return new HikariDataSource(config);
  }

  /**
   * The JDBC URL of another database on the same server (same hosts, ports and parameters), for
   * example to connect to this database's server as another role, or to an administrative database.
   *
   * @param databaseName the database to point at
   * @return the URL, without credentials
   */
  public String jdbcUrlFor(String databaseName) {
    return PgJdbcUrl.withDatabase(jdbcUrl, Objects.requireNonNull(databaseName, "databaseName"));
  }
}
