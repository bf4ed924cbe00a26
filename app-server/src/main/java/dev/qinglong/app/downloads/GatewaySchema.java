package dev.qinglong.app.downloads;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.config.QingLongProperties;
import dev.qinglong.app.store.PostgresStores;
import dev.qinglong.gateway.postgres.GatewayMigrations;
import dev.qinglong.gateway.postgres.GatewayRoles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the shared-download schema ({@code db/postgres-downloads}) as the schema owner, after the
 * base migrations, and (with {@code qinglong.postgres.bootstrap-roles=true}) creates the {@code
 * ql3_reader} login first. Nothing to do on SQLite.
 */
public final class GatewaySchema {
  private static final Logger log = LoggerFactory.getLogger(GatewaySchema.class);

  private final int appliedVersion;

  private GatewaySchema(int appliedVersion) {
    this.appliedVersion = appliedVersion;
  }

  /** The shared-download schema version found at start (0 on SQLite). */
  public int appliedVersion() {
    return appliedVersion;
  }

  static GatewaySchema migrate(QingLongProperties properties) {
    if (properties.getStore() != QingLongProperties.Store.POSTGRES) {
      return new GatewaySchema(0);
    }
    QingLongProperties.Postgres pg = properties.getPostgres();
    try (HikariDataSource owner =
        PostgresStores.pool(
            "qinglong-owner-downloads", pg.getUrl(), pg.getUsername(), pg.getPassword(), 2, null)) {
      if (pg.isBootstrapRoles()) {
        GatewayRoles.bootstrap(owner);
      }
      int applied = GatewayMigrations.migrate(owner);
      int version = GatewayMigrations.appliedVersion(owner);
      log.info(
          "store.postgres.downloads-migrated migrationsApplied={} schemaVersion={}",
          applied,
          version);
      if (version < GatewayMigrations.REQUIRED_VERSION) {
        throw new IllegalStateException(
            "the shared-download schema is at version "
                + version
                + ", this build needs "
                + GatewayMigrations.REQUIRED_VERSION);
      }
      return new GatewaySchema(version);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(
          "cannot read the shared-download schema version: " + e.getMessage(), e);
    }
  }
}
