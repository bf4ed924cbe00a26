package dev.qinglong.sqlite;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.backend.MigrationHistory;
import dev.qinglong.core.kernel.OwnerOnlyFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Properties;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Opens the embedded SQLite database: one file, WAL journal, a busy timeout, foreign keys on,
 * transactions that take the write lock at BEGIN ({@code BEGIN IMMEDIATE}), and one connection per
 * pool, because SQLite has one writer at a time and a single connection makes that explicit. The
 * connection keeps its prepared statements ({@link StatementCachingDataSource}).
 */
public final class SqliteDatabase {
  /** Flyway location of the base schema. */
  public static final String MIGRATIONS = "classpath:db/sqlite";

  /** Flyway location of the optional AI feature (model-invocation quota). */
  public static final String AI_MIGRATIONS = "classpath:db/sqlite-ai";

  /** The AI feature's own history table, so enabling it later never disturbs the base history. */
  public static final String AI_HISTORY_TABLE = "flyway_ai_schema_history";

  /** The base history table. */
  public static final String HISTORY_TABLE = "flyway_schema_history";

  /** The base schema version this code needs. */
  public static final int REQUIRED_VERSION = 11;

  /** The AI schema version this code needs (when the feature is enabled). */
  public static final int AI_REQUIRED_VERSION = 2;

  private SqliteDatabase() {}

  /**
   * A one-connection pool to {@code file}. Missing parent directories are created with mode 0700, a
   * missing database file with mode 0600 (SQLite gives its {@code -wal} and {@code -shm} files the
   * database file's mode), so the data is its owner's only; existing files keep their mode.
   */
  public static HikariDataSource open(Path file) {
    try {
      createOwnerOnly(file.toAbsolutePath());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + file + " or its directory", e);
    }
    Properties pragmas = new Properties();
    pragmas.setProperty("journal_mode", "WAL");
    pragmas.setProperty("synchronous", "NORMAL");
    pragmas.setProperty("busy_timeout", "10000");
    pragmas.setProperty("foreign_keys", "true");
    pragmas.setProperty("transaction_mode", "IMMEDIATE");
    // Compiling a statement costs SQLite more than running it: keep them (the driver does not).
    SQLiteDataSource sqlite = new StatementCachingDataSource(new SQLiteConfig(pragmas));
    sqlite.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
    HikariConfig config = new HikariConfig();
    config.setPoolName("sqlite-" + file.getFileName());
    config.setDataSource(sqlite);
    config.setMaximumPoolSize(1);
    config.setMinimumIdle(1);
    config.setConnectionTimeout(30_000);
    return new HikariDataSource(config);
  }

  private static void createOwnerOnly(Path file) throws IOException {
    Path parent = file.getParent();
    if (parent != null) {
      OwnerOnlyFiles.createDirectories(parent);
    }
    if (OwnerOnlyFiles.posix() && !Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      try {
        // An empty file is a valid empty database to SQLite.
        OwnerOnlyFiles.createFile(file);
      } catch (FileAlreadyExistsException e) {
        // Another process created it first: its creator chose the mode.
      }
    }
  }

  private static final MigrationHistory BASE =
      new MigrationHistory(MIGRATIONS, HISTORY_TABLE, false);

  private static final MigrationHistory AI =
      new MigrationHistory(AI_MIGRATIONS, AI_HISTORY_TABLE, true);

  /** Applies the base migrations; returns how many were applied. */
  public static int migrate(DataSource dataSource) {
    return BASE.migrate(dataSource);
  }

  /**
   * Applies the optional AI feature's migrations (own location and history table). Call it only
   * when {@code qinglong.ai.enabled=true}, after {@link #migrate}: without it no AI table exists.
   * The AI history starts from an empty baseline ({@link MigrationHistory}).
   *
   * @return how many AI migrations were applied
   */
  public static int migrateAi(DataSource dataSource) {
    return AI.migrate(dataSource);
  }
}
