package dev.qinglong.postgres.backend;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.postgres.PostgresLogins;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.leases.GatewayMigrations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The migrate step: the only code that connects as the schema owner. Applies the base schema, the
 * shared-download schema and (when the AI feature is on) the AI schema, each with its own Flyway
 * history; Flyway's lock makes concurrent runs safe. With {@link PostgresSettings#bootstrapRoles()}
 * it first creates the missing {@code ql3_*} login roles (the owner needs CREATEROLE).
 */
public final class PostgresMigrator {
  private static final Logger log = LoggerFactory.getLogger(PostgresMigrator.class);

  private PostgresMigrator() {}

  /** How many migrations each history applied. */
  public record Result(int base, int downloads, int ai) {}

  /**
   * @param ai also apply the AI feature's schema
   * @throws IllegalStateException if there is no owner login, or the owner cannot migrate
   */
  public static Result migrate(PostgresSettings settings, boolean ai) {
    try (HikariDataSource owner =
        PostgresPools.owner(
            "qinglong-owner", settings.url(), settings.requireOwner(), settings.timeouts())) {
      if (settings.bootstrapRoles()) {
        PostgresLogins.bootstrap(owner);
      }
      int base = PostgresMigrations.migrate(owner);
      int downloads = GatewayMigrations.migrate(owner);
      int aiApplied = ai ? PostgresMigrations.migrateAi(owner) : 0;
      log.info(
          "store.postgres.migrated base={} downloads={} ai={} aiEnabled={}",
          base,
          downloads,
          aiApplied,
          ai);
      return new Result(base, downloads, aiApplied);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "the PostgreSQL schema could not be migrated as "
              + settings.requireOwner().username()
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
