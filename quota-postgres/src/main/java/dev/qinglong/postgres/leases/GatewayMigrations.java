package dev.qinglong.postgres.leases;

import dev.qinglong.backend.MigrationHistory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * Applies the shared-download schema (Flyway, append-only) into schema {@value #SCHEMA}, with its
 * own location and history table so it versions independently of the base schema. Run it as the
 * schema owner, after the base schema ({@code PostgresMigrations}) and after the {@code ql3_reader}
 * role exists ({@link dev.qinglong.postgres.PostgresLogins}).
 */
public final class GatewayMigrations {
  public static final String SCHEMA = "qinglong";
  public static final String LOCATION = "classpath:db/postgres-downloads";
  public static final String HISTORY_TABLE = "flyway_downloads_history";

  /** The shared-download schema version this code needs. */
  public static final int REQUIRED_VERSION = 2;

  // The schema belongs to the base migrations: this history baselines below its version 1.
  private static final MigrationHistory HISTORY =
      new MigrationHistory(LOCATION, HISTORY_TABLE, true);

  private GatewayMigrations() {}

  /** A Flyway configured for the shared-download schema over the owner's connection. */
  public static Flyway flyway(DataSource owner) {
    return HISTORY.configure(owner, SCHEMA).createSchemas(false).load();
  }

  /**
   * Migrates; returns the number of migrations applied.
   *
   * @throws IllegalStateException if schema {@value #SCHEMA} does not exist yet
   */
  public static int migrate(DataSource owner) {
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = '" + SCHEMA + "'");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new IllegalStateException(
            "schema " + SCHEMA + " is missing: apply the base migrations first");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot check schema " + SCHEMA + ": " + e.getMessage(), e);
    }
    return flyway(owner).migrate().migrationsExecuted;
  }

  /**
   * The highest successfully applied shared-download version (0 if none), for readiness.
   *
   * @throws SQLException if the database cannot be read
   */
  public static int appliedVersion(DataSource dataSource) throws SQLException {
    return MigrationHistory.appliedVersion(dataSource, SCHEMA + "." + HISTORY_TABLE);
  }
}
