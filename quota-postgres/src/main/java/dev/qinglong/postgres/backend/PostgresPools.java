package dev.qinglong.postgres.backend;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.postgres.PostgresMigrations;

/** Pools as every PostgreSQL component of the app opens them. */
public final class PostgresPools {
  private PostgresPools() {}

  /** A request waits at most this long for a free connection of its pool, then gets 503. */
  public static final long POOL_WAIT_MILLIS = 3_000;

  /**
   * A component's pool on schema {@code qinglong}: fail fast (3 s) per request, and start even
   * while the database is away (readiness reports it, requests get 503). Every connection carries
   * the {@code timeouts}: connect and login, socket reads, and the server-side {@code
   * statement_timeout} and {@code lock_timeout}; TCP keep-alive is on. Parameters written into the
   * JDBC URL itself win over these.
   */
  public static HikariDataSource component(
      String name,
      String url,
      PostgresSettings.Login login,
      int size,
      PostgresSettings.Timeouts timeouts) {
    HikariConfig config = base(name, url, login, size, timeouts);
    config.setInitializationFailTimeout(-1);
    config.setSchema(PostgresMigrations.SCHEMA);
    config.addDataSourceProperty("socketTimeout", Long.toString(timeouts.socketSeconds()));
    config.addDataSourceProperty(
        "options",
        "-c statement_timeout="
            + timeouts.statement().toMillis()
            + " -c lock_timeout="
            + timeouts.lock().toMillis());
    return new HikariDataSource(config);
  }

  /**
   * The owner's migration pool: it must connect at once, or the migration fails. Connecting is
   * bounded and TCP keep-alive is on, but no socket or statement timeout applies: a migration (an
   * index build on a large table, Flyway's lock) may rightly take long.
   */
  public static HikariDataSource owner(
      String name, String url, PostgresSettings.Login login, PostgresSettings.Timeouts timeouts) {
    HikariConfig config = base(name, url, login, 2, timeouts);
    config.setInitializationFailTimeout(1);
    return new HikariDataSource(config);
  }

  private static HikariConfig base(
      String name,
      String url,
      PostgresSettings.Login login,
      int size,
      PostgresSettings.Timeouts timeouts) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url);
    config.setUsername(login.username());
    if (login.password() != null && !login.password().isEmpty()) {
      config.setPassword(login.password());
    }
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(POOL_WAIT_MILLIS);
    config.setValidationTimeout(1_000);
    // An idle connection is checked every 30 s, so one a failover silently cut is replaced before
    // a request borrows it (a borrowed connection is also validated when idle for over 0.5 s).
    config.setKeepaliveTime(30_000);
    config.addDataSourceProperty("ApplicationName", name);
    config.addDataSourceProperty("connectTimeout", Long.toString(timeouts.connectSeconds()));
    config.addDataSourceProperty("loginTimeout", Long.toString(timeouts.connectSeconds()));
    config.addDataSourceProperty("tcpKeepAlive", "true");
    return config;
  }
}
