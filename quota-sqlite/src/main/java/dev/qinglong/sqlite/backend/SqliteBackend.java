package dev.qinglong.sqlite.backend;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.ai.ModelQuotaStore;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.worker.WorkerLock;
import dev.qinglong.jdbc.JdbcDialect;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.jdbc.JdbcPolicyStore;
import dev.qinglong.jdbc.backend.BackendParts;
import dev.qinglong.jdbc.backend.DataSourceDecorator;
import dev.qinglong.jdbc.backend.DownloadCoordination;
import dev.qinglong.jdbc.backend.DownloadSettings;
import dev.qinglong.jdbc.backend.OpenedParts;
import dev.qinglong.jdbc.backend.SchemaProbe;
import dev.qinglong.jdbc.backend.StandaloneDownloads;
import dev.qinglong.jdbc.backend.StoreBackend;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.SqliteDialect;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded SQLite store: one process is the whole system, one file, and ONE one-connection pool
 * for every part, so every write of the process is serialised on one connection (the file's write
 * lock is never contended inside the process). Migrations always run at start; the worker lock is
 * {@link WorkerLock#singleProcess()}; downloads are standalone with the whole budget.
 */
public final class SqliteBackend implements StoreBackend {
  private static final Logger log = LoggerFactory.getLogger(SqliteBackend.class);

  private static final JdbcDialect DIALECT = SqliteDialect.INSTANCE;

  private final BackendParts parts;
  private final OpenedParts opened = new OpenedParts();
  private final List<SchemaProbe> probes = new ArrayList<>();
  private ProjectPolicyStore policy;
  private GovernanceStore governance;
  private ManagementQuotaStore quota;
  private ModelQuotaStore modelQuota;
  private WorkerLock workerLock;

  private SqliteBackend(BackendParts parts) {
    this.parts = parts;
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
    try (HikariDataSource pool = SqliteDatabase.open(file)) {
      return SqliteDatabase.migrate(pool) + (ai ? SqliteDatabase.migrateAi(pool) : 0);
    }
  }

  @Override
  public String kind() {
    return "sqlite";
  }

  @Override
  public BackendParts parts() {
    return parts;
  }

  @Override
  public ProjectPolicyStore policy() {
    return policy;
  }

  @Override
  public GovernanceStore governance() {
    return governance;
  }

  @Override
  public ManagementQuotaStore managementQuota() {
    return OpenedParts.require(quota, "the management quota store");
  }

  @Override
  public ModelQuotaStore modelQuota() {
    return OpenedParts.require(modelQuota, "the model quota store");
  }

  @Override
  public GovernanceStore publisher() {
    OpenedParts.require(workerLock, "the worker's publishing store");
    return governance;
  }

  @Override
  public WorkerLock workerLock() {
    return OpenedParts.require(workerLock, "the worker lock");
  }

  @Override
  public DownloadCoordination startDownloads(DownloadSettings settings, LeaseListener listener) {
    if (!parts.downloads()) {
      throw new IllegalStateException(
          "downloads were not opened for this process's role. Indicates a bug.");
    }
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

  @Override
  public List<SchemaProbe> probes() {
    return List.copyOf(probes);
  }

  @Override
  public void close() {
    opened.close();
  }
}
