package dev.qinglong.backend;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * One Flyway history of a store (append-only migrations): where its migrations are and which table
 * records them. A {@code baselined} history joins a schema another history already filled, so it
 * starts from an empty baseline (version 0) instead of Flyway refusing a non-empty schema.
 */
public record MigrationHistory(String location, String table, boolean baselined) {

  /** Flyway over {@code owner} for this history, in {@code schemas} (none: the connection's). */
  public FluentConfiguration configure(DataSource owner, String... schemas) {
    FluentConfiguration flyway =
        Flyway.configure()
            .dataSource(owner)
            .table(table)
            .locations(location)
            .failOnMissingLocations(true);
    if (schemas.length > 0) {
      flyway.schemas(schemas);
    }
    return baselined ? flyway.baselineOnMigrate(true).baselineVersion("0") : flyway;
  }

  /** Migrates; returns the number of migrations applied. */
  public int migrate(DataSource owner, String... schemas) {
    return configure(owner, schemas).load().migrate().migrationsExecuted;
  }

  /**
   * The highest successfully applied version (0 if none) recorded in {@code table}, named as the
   * connection finds it; read through any role's connection.
   *
   * @throws SQLException if the database cannot be read
   */
  public static int appliedVersion(DataSource dataSource, String table) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT coalesce(max(CAST(version AS integer)), 0) FROM "
                    + table
                    + " WHERE success AND version IS NOT NULL");
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getInt(1) : 0;
    }
  }
}
