package dev.qinglong.postgres.backend;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.StoredLeases;
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
import dev.qinglong.postgres.PostgresDialect;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.leases.GatewayMigrations;
import dev.qinglong.postgres.leases.PostgresStoredLeases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL store for one process. Each part connects as its own least-privilege login and
 * nothing else ({@link BackendParts}):
 *
 * <ul>
 *   <li>governance: {@code ql3_package_manager} (quota, governance, Policy reads) and {@code
 *       ql3_admin} (member writes);
 *   <li>model quota: {@code ql3_runtime}, and {@code ql3_admin} for policy writes only (the runtime
 *       must not raise its own budget);
 *   <li>worker: {@code ql3_package_executor}, a one-connection pool and the worker lock's dedicated
 *       connection;
 *   <li>downloads: {@code ql3_reader}, a small pool (Policy and published-artifact reads of a
 *       download-only process; schema checks) and the lease's or barrier's dedicated connection.
 * </ul>
 *
 * The schema owner connects only to migrate ({@link PostgresMigrator}): at start when {@link
 * PostgresSettings#migrate()}, else never — the process then verifies every schema it uses through
 * its own logins and refuses to start when one is behind.
 */
public final class PostgresBackend extends AbstractStoreBackend {
  private static final Logger log = LoggerFactory.getLogger(PostgresBackend.class);
  private static final Duration SCHEMA_CHECK_TIMEOUT = Duration.ofSeconds(5);
  private static final String BASE_HISTORY =
      PostgresMigrations.SCHEMA + "." + PostgresMigrations.HISTORY_TABLE;
  private static final String AI_HISTORY =
      PostgresMigrations.SCHEMA + "." + PostgresMigrations.AI_HISTORY_TABLE;
  private static final String DOWNLOADS_HISTORY =
      GatewayMigrations.SCHEMA + "." + GatewayMigrations.HISTORY_TABLE;

  private static final JdbcDialect DIALECT = PostgresDialect.INSTANCE;

  private final PostgresSettings settings;

  /** The {@code ql3_reader} pool of a role that serves downloads, else {@code null}. */
  private DataSource downloadsReader;

  private PostgresBackend(PostgresSettings settings, BackendParts parts) {
    super(parts);
    this.settings = settings;
  }

  /**
   * Migrates (if the settings say so) and opens exactly {@code parts}.
   *
   * @throws IllegalStateException with an operator-readable message if the schema cannot be
   *     migrated or, not migrating, is behind what this build needs
   */
  public static PostgresBackend open(
      PostgresSettings settings, BackendParts parts, DataSourceDecorator decorator) {
    if (settings.migrate()) {
      PostgresMigrator.migrate(settings, parts.modelQuota());
    }
    PostgresBackend backend = new PostgresBackend(settings, parts);
    try {
      backend.openParts(decorator);
      if (!settings.migrate()) {
        for (SchemaProbe probe : backend.probes) {
          probe.require(SCHEMA_CHECK_TIMEOUT);
        }
      }
    } catch (RuntimeException e) {
      throw backend.opened.closeAfter(e);
    }
    log.info(
        "store.postgres.ready parts={} migrated={} logins={}",
        parts,
        settings.migrate(),
        backend.logins());
    return backend;
  }

  private void openParts(DataSourceDecorator decorator) {
    DataSource admin = null;
    if (parts.governance()) {
      DataSource manager =
          pool(PostgresSettings.PACKAGE_MANAGER, settings.managerPoolSize(), decorator);
      admin = pool(PostgresSettings.ADMIN, settings.adminPoolSize(), decorator);
      policy =
          new SplitPolicyStore(
              new JdbcPolicyStore(manager, DIALECT), new JdbcPolicyStore(admin, DIALECT));
      // Concurrent decisions share statements and commits, at most one batch per connection.
      quota =
          new JdbcManagementQuotaStore(
              manager,
              DIALECT,
              JdbcManagementQuotaStore.Coalescing.forPool(settings.managerPoolSize()));
      governance = new JdbcGovernanceStore(manager, DIALECT);
      probes.add(
          new SchemaProbe(
              "package-manager", manager, BASE_HISTORY, PostgresMigrations.REQUIRED_VERSION));
      probes.add(
          new SchemaProbe("admin", admin, BASE_HISTORY, PostgresMigrations.REQUIRED_VERSION));
    }
    if (parts.modelQuota()) {
      DataSource runtime = pool(PostgresSettings.RUNTIME, settings.runtimePoolSize(), decorator);
      // BackendParts opens the model quota only with governance, so the admin pool is open.
      modelQuota =
          new SplitModelQuotaStore(
              new JdbcModelQuotaStore(runtime, DIALECT), new JdbcModelQuotaStore(admin, DIALECT));
      probes.add(
          new SchemaProbe("runtime", runtime, AI_HISTORY, PostgresMigrations.AI_REQUIRED_VERSION));
    }
    if (parts.worker()) {
      DataSource executor = pool(PostgresSettings.PACKAGE_EXECUTOR, 1, decorator);
      publisher = new JdbcGovernanceStore(executor, DIALECT);
      workerLock = opened.add(PostgresDownloads.workerLock(settings));
      probes.add(
          new SchemaProbe(
              "package-executor", executor, BASE_HISTORY, PostgresMigrations.REQUIRED_VERSION));
    }
    if (parts.downloads()) {
      // Roles with the management API read Policy through it; a read gateway through ql3_reader.
      int size = parts.governance() ? 1 : settings.readerPoolSize();
      DataSource reader = pool(PostgresSettings.READER, size, decorator);
      downloadsReader = reader;
      if (!parts.governance()) {
        policy = new JdbcPolicyStore(reader, DIALECT);
        governance = new JdbcGovernanceStore(reader, DIALECT);
        probes.add(
            new SchemaProbe("reader", reader, BASE_HISTORY, PostgresMigrations.REQUIRED_VERSION));
      }
      probes.add(
          new SchemaProbe(
              "downloads", reader, DOWNLOADS_HISTORY, GatewayMigrations.REQUIRED_VERSION));
    }
  }

  private DataSource pool(String role, int size, DataSourceDecorator decorator) {
    HikariDataSource pool =
        opened.add(
            PostgresPools.component(
                "qinglong-" + role,
                settings.url(),
                settings.login(role),
                size,
                settings.timeouts()));
    return decorator.decorate(role, pool);
  }

  private List<String> logins() {
    List<String> out = new ArrayList<>();
    if (parts.governance()) {
      out.add(settings.login(PostgresSettings.PACKAGE_MANAGER).username());
      out.add(settings.login(PostgresSettings.ADMIN).username());
    }
    if (parts.modelQuota()) {
      out.add(settings.login(PostgresSettings.RUNTIME).username());
    }
    if (parts.worker()) {
      out.add(settings.login(PostgresSettings.PACKAGE_EXECUTOR).username());
    }
    if (parts.downloads()) {
      out.add(settings.login(PostgresSettings.READER).username());
    }
    return out;
  }

  @Override
  public String kind() {
    return "postgres";
  }

  @Override
  protected DownloadCoordination openDownloads(DownloadSettings downloads, LeaseListener listener) {
    return PostgresDownloads.start(settings, downloads, listener);
  }

  /**
   * Read as {@code ql3_reader} (the only login granted the download tables): through its pool where
   * this role opened one, else on a one-off dedicated connection (an operator's occasional read,
   * not worth a pool on a role that opens no reader pool).
   */
  @Override
  public StoredLeases storedLeases() {
    try (Connection c =
        downloadsReader != null
            ? downloadsReader.getConnection()
            : PostgresDownloads.readerConnections(settings).open()) {
      return PostgresStoredLeases.read(c);
    } catch (SQLException e) {
      throw new StoreUnavailableException("download leases cannot be read", e);
    }
  }
}
