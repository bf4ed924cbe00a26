package dev.qinglong.postgres;

import dev.qinglong.backend.MigrationHistory;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/** Applies the base schema (Flyway, append-only) into schema {@value #SCHEMA}, as its owner. */
public final class PostgresMigrations {
  public static final String SCHEMA = "qinglong";
  public static final String LOCATION = "classpath:db/postgres";
  public static final String HISTORY_TABLE = "flyway_schema_history";

  /** Flyway location of the optional AI feature (model-invocation quota). */
  public static final String AI_LOCATION = "classpath:db/postgres-ai";

  /** The AI feature's own history table, so enabling it later never disturbs the base history. */
  public static final String AI_HISTORY_TABLE = "flyway_ai_schema_history";

  /** The base schema version this code needs. */
  public static final int REQUIRED_VERSION = 13;

  /** The AI schema version this code needs (when the feature is enabled). */
  public static final int AI_REQUIRED_VERSION = 5;

  private static final MigrationHistory BASE = new MigrationHistory(LOCATION, HISTORY_TABLE, false);

  private static final MigrationHistory AI =
      new MigrationHistory(AI_LOCATION, AI_HISTORY_TABLE, true);

  private PostgresMigrations() {}

  /** A Flyway configured for the base schema over the owner's connection. */
  public static Flyway flyway(DataSource owner) {
    return BASE.configure(owner, SCHEMA).createSchemas(true).load();
  }

  /** Migrates; returns the number of migrations applied. */
  public static int migrate(DataSource owner) {
    return flyway(owner).migrate().migrationsExecuted;
  }

  /**
   * Applies the optional AI feature's migrations (own location and history table) as the schema
   * owner. Call it only when {@code qinglong.ai.enabled=true}, after {@link #migrate}: without it
   * no AI table exists. The AI history starts from an empty baseline ({@link MigrationHistory}).
   *
   * @return the number of AI migrations applied
   */
  public static int migrateAi(DataSource owner) {
    return AI.migrate(owner, SCHEMA);
  }

  /**
   * The highest successfully applied base version, read through any role's connection.
   *
   * @throws SQLException if the database cannot be read
   */
  public static int appliedVersion(DataSource dataSource) throws SQLException {
    return MigrationHistory.appliedVersion(dataSource, SCHEMA + "." + HISTORY_TABLE);
  }
}
