package dev.qinglong.postgres.backend;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.postgres.PostgresMigrations;

/** Pools as every PostgreSQL component of the app opens them. */
public final class PostgresPools {
  private PostgresPools() {}

  /**
   * A component's pool on schema {@code qinglong}: fail fast (3 s) per request, and start even
   * while the database is away (readiness reports it, requests get 503).
   */
  public static HikariDataSource component(
      String name, String url, PostgresSettings.Login login, int size) {
    HikariConfig config = base(name, url, login, size);
    config.setInitializationFailTimeout(-1);
    config.setSchema(PostgresMigrations.SCHEMA);
    return new HikariDataSource(config);
  }

  /** The owner's migration pool: it must connect at once, or the migration fails. */
  public static HikariDataSource owner(String name, String url, PostgresSettings.Login login) {
    HikariConfig config = base(name, url, login, 2);
    config.setInitializationFailTimeout(1);
    return new HikariDataSource(config);
  }

  private static HikariConfig base(
      String name, String url, PostgresSettings.Login login, int size) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url);
    config.setUsername(login.username());
    if (login.password() != null && !login.password().isEmpty()) {
      config.setPassword(login.password());
    }
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(3_000);
    config.setValidationTimeout(1_000);
    config.addDataSourceProperty("ApplicationName", name);
    return config;
  }
}
