package dev.qinglong.sqlite.backend;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.worker.WorkerLock;
import dev.qinglong.jdbc.JdbcDialect;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.jdbc.JdbcPolicyStore;
import dev.qinglong.jdbc.backend.AbstractStoreBackend;
import dev.qinglong.jdbc.backend.BackendParts;
import dev.qinglong.jdbc.backend.DataSourceDecorator;
import dev.qinglong.jdbc.backend.DownloadCoordination;
import dev.qinglong.jdbc.backend.DownloadSettings;
import dev.qinglong.jdbc.backend.SchemaProbe;
import dev.qinglong.jdbc.backend.StandaloneDownloads;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.SqliteDialect;
import dev.qinglong.sqlite.SqliteProcessLock;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded SQLite store: one process is the whole system, one file, and ONE one-connection pool
 * for every part, so every write of the process is serialised on one connection (the file's write
 * lock is never contended inside the process). The process holds {@link SqliteProcessLock} on the
 * file for its lifetime, so a second process on the same file is refused at start. Migrations
 * always run at start; the worker lock is {@link WorkerLock#singleProcess()}; downloads are
 * standalone with the whole budget.
 */
public final class SqliteBackend extends AbstractStoreBackend {
  private static final Logger log = LoggerFactory.getLogger(SqliteBackend.class);

  private static final JdbcDialect DIALECT = SqliteDialect.INSTANCE;

  private SqliteBackend(BackendParts parts) {
    super(parts);
  }

  /** The database file under a data directory. */
  public static Path file(Path dataDir) {
    return dataDir.resolve("qinglong.db").toAbsolutePath().normalize();
  }

  /**
   * Opens {@code file}, applies the base migrations (and the AI ones when {@code ai}) and wires
   * {@code parts} over one pool.
   */
  public static SqliteBackend open(
      Path file, boolean ai, BackendParts parts, DataSourceDecorator decorator) {
    SqliteBackend backend = new SqliteBackend(parts);
    try {
      // One process per file: a second one is refused here, before it migrates or writes.
      backend.opened.add(SqliteProcessLock.acquire(file));
      HikariDataSource pool = backend.opened.add(SqliteDatabase.open(file));
      int applied = SqliteDatabase.migrate(pool);
      int aiApplied = ai ? SqliteDatabase.migrateAi(pool) : 0;
      DataSource ds = decorator.decorate("sqlite", pool);
      backend.policy = new JdbcPolicyStore(ds, DIALECT);
      backend.governance = new JdbcGovernanceStore(ds, DIALECT);
      backend.probes.add(
          new SchemaProbe(
              "sqlite", ds, SqliteDatabase.HISTORY_TABLE, SqliteDatabase.REQUIRED_VERSION));
      if (parts.governance()) {
        backend.quota = new JdbcManagementQuotaStore(ds, DIALECT);
      }
      if (parts.modelQuota()) {
        DataSource aiDs = decorator.decorate("sqlite-ai", pool);
        backend.modelQuota = new JdbcModelQuotaStore(aiDs, DIALECT);
        backend.probes.add(
            new SchemaProbe(
                "sqlite-ai",
                aiDs,
                SqliteDatabase.AI_HISTORY_TABLE,
                SqliteDatabase.AI_REQUIRED_VERSION));
      }
      if (parts.worker()) {
        backend.workerLock = WorkerLock.singleProcess();
        backend.publisher = backend.governance;
      }
      log.info(
          "store.sqlite.ready file={} migrationsApplied={} aiMigrationsApplied={} parts={}",
          file,
          applied,
          aiApplied,
          parts);
      return backend;
    } catch (RuntimeException e) {
      throw backend.opened.closeAfter(e);
    }
  }

  /** The migrate step on SQLite: what {@link #open} applies, without opening anything else. */
  public static int migrate(Path file, boolean ai) {
    try (SqliteProcessLock lock = SqliteProcessLock.acquire(file);
        HikariDataSource pool = SqliteDatabase.open(file)) {
      return SqliteDatabase.migrate(pool) + (ai ? SqliteDatabase.migrateAi(pool) : 0);
    }
  }

  @Override
  public String kind() {
    return "sqlite";
  }

  @Override
  protected DownloadCoordination openDownloads(DownloadSettings settings, LeaseListener listener) {
    if (settings.shared()) {
      throw new IllegalStateException(
          "qinglong.downloads.mode=shared needs qinglong.store=postgres (the leases live there)");
    }
    log.info(
        "downloads.standalone rateBytesPerSecond={} perPrincipalBytesPerSecond={} barrier=false",
        settings.rateBytesPerSecond(),
        settings.perPrincipalBytesPerSecond());
    return StandaloneDownloads.alone(settings);
  }
}
