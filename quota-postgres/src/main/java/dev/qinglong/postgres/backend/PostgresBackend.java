package dev.qinglong.postgres.backend;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.backend.BackendParts;
import dev.qinglong.backend.DataSourceDecorator;
import dev.qinglong.backend.OpenedParts;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.backend.SchemaProbe;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.webhooks.SecretSealer;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookStore;
import dev.qinglong.gateway.lease.StoredLeases;
import dev.qinglong.jdbc.JdbcDialect;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.jdbc.JdbcPolicyStore;
import dev.qinglong.jdbc.JdbcWebhookEventOutbox;
import dev.qinglong.jdbc.JdbcWebhookStore;
import dev.qinglong.postgres.PostgresDialect;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.leases.GatewayMigrations;
import dev.qinglong.postgres.leases.PostgresStoredLeases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL store for one process. Each part connects as its own least-privilege login and
 * nothing else ({@link BackendParts}):
 *
 * <ul>
 *   <li>governance: {@code ql3_package_manager} (quota, governance, Policy reads) and {@code
 *       ql3_admin} (member writes, webhook registrations);
 *   <li>model quota: {@code ql3_runtime}, and {@code ql3_admin} for policy writes only (the runtime
 *       must not raise its own budget);
 *   <li>worker: {@code ql3_package_executor}, a small pool (one connection, three with webhook
 *       delivery) and the worker lock's dedicated connection;
 *   <li>downloads: {@code ql3_reader}, a small pool (Policy and published-artifact reads of a
 *       download-only process; schema checks) and the lease's or barrier's dedicated connection.
 * </ul>
 *
 * The schema owner connects only to migrate ({@link PostgresMigrator}): at start when {@link
 * PostgresSettings#migrate()}, else never — the process then verifies every schema it uses through
 * its own logins and refuses to start when one is behind.
 */
public final class PostgresBackend {
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
  private final BackendParts parts;
  private final DataSourceDecorator decorator;
  private final Optional<SecretSealer> webhookSealer;
  private final OpenedParts opened = new OpenedParts();
  private final List<SchemaProbe> probes = new ArrayList<>();
  private final List<String> logins = new ArrayList<>();

  private PostgresBackend(
      PostgresSettings settings,
      BackendParts parts,
      DataSourceDecorator decorator,
      Optional<SecretSealer> webhookSealer) {
    this.settings = settings;
    this.parts = parts;
    this.decorator = decorator;
    this.webhookSealer = webhookSealer;
  }

  /**
   * Migrates (if the settings say so) and opens exactly {@code parts}.
   *
   * @throws IllegalStateException with an operator-readable message if the schema cannot be
   *     migrated or, not migrating, is behind what this build needs
   */
  public static OpenedStore open(
      PostgresSettings settings, BackendParts parts, DataSourceDecorator decorator) {
    return open(settings, parts, decorator, Optional.empty());
  }

  /**
   * As {@link #open(PostgresSettings, BackendParts, DataSourceDecorator)}, with the webhook stores
   * when {@code webhookSealer} is present (it seals and opens the endpoints' signing secrets).
   */
  public static OpenedStore open(
      PostgresSettings settings,
      BackendParts parts,
      DataSourceDecorator decorator,
      Optional<SecretSealer> webhookSealer) {
    if (settings.migrate()) {
      PostgresMigrator.migrate(settings, parts.modelQuota());
    }
    PostgresBackend backend = new PostgresBackend(settings, parts, decorator, webhookSealer);
    try {
      OpenedStore store = backend.openParts();
      if (!settings.migrate()) {
        for (SchemaProbe probe : store.probes()) {
          probe.require(SCHEMA_CHECK_TIMEOUT);
        }
      }
      log.info(
          "store.postgres.ready parts={} migrated={} logins={}",
          parts,
          settings.migrate(),
          backend.logins);
      return store;
    } catch (RuntimeException e) {
      throw backend.opened.closeAfter(e);
    }
  }

  private OpenedStore openParts() {
    OpenedStore.Catalog catalog = null;
    ManagementQuotaStore quota = null;
    ModelQuotaStore modelQuota = null;
    OpenedStore.Worker worker = null;
    WebhookStore webhooks = null;
    WebhookEventOutbox webhookEvents = null;
    PostgresDownloads downloads = null;
    DataSource admin = null;
    if (parts.governance()) {
      DataSource manager = pool(PostgresSettings.PACKAGE_MANAGER, settings.managerPoolSize());
      admin = pool(PostgresSettings.ADMIN, settings.adminPoolSize());
      catalog =
          new OpenedStore.Catalog(
              // Policy reads as the package manager; membership and approval-policy writes as the
              // admin.
              new JdbcPolicyStore(manager, admin, DIALECT),
              new JdbcGovernanceStore(manager, admin, DIALECT));
      // Concurrent decisions share statements and commits, at most one batch per connection; limit
      // revisions are written as the admin (migration V11), read by the deciding statements.
      quota =
          new JdbcManagementQuotaStore(
              manager,
              admin,
              DIALECT,
              System::nanoTime,
              JdbcManagementQuotaStore.Coalescing.forPool(settings.managerPoolSize()));
      // Webhook registrations are policy writes (migration V12): the admin's.
      DataSource registrations = admin;
      webhooks =
          webhookSealer.map(s -> new JdbcWebhookStore(registrations, DIALECT, s)).orElse(null);
      // A refusal's event (management-quota.rejected) is written as the admin too, after the
      // decision and off its path (no new grant: V12 lets the admin insert deliveries).
      webhookEvents =
          webhookSealer.isPresent() ? new JdbcWebhookEventOutbox(registrations, DIALECT) : null;
      probeBase("package-manager", manager);
      probeBase("admin", admin);
    }
    if (parts.modelQuota()) {
      DataSource runtime = pool(PostgresSettings.RUNTIME, settings.runtimePoolSize());
      // BackendParts opens the model quota only with governance, so the admin pool is open. Policy
      // writes go through ql3_admin: the runtime may read policies but must not raise the budget
      // that fences it (migration db/postgres-ai/V2).
      modelQuota = new JdbcModelQuotaStore(runtime, admin, DIALECT);
      probes.add(
          new SchemaProbe("runtime", runtime, AI_HISTORY, PostgresMigrations.AI_REQUIRED_VERSION));
    }
    if (parts.worker()) {
      // Webhook delivery claims and records attempts as the executor too (migration V12), beside
      // the publication worker's statements: a few more connections.
      DataSource executor =
          pool(PostgresSettings.PACKAGE_EXECUTOR, webhookSealer.isPresent() ? 3 : 1);
      worker =
          new OpenedStore.Worker(
              new JdbcGovernanceStore(executor, DIALECT),
              opened.add(PostgresDownloads.workerLock(settings)),
              webhookSealer.map(s -> (WebhookStore) new JdbcWebhookStore(executor, DIALECT, s)),
              // The threshold pass: writes model-quota.threshold events and reads windows as the
              // executor (db/postgres-ai V5 lets it read the three window tables).
              webhookSealer.map(s -> new JdbcWebhookEventOutbox(executor, DIALECT)),
              webhookSealer.map(s -> new JdbcModelQuotaStore(executor, DIALECT)));
      probeBase("package-executor", executor);
    }
    DataSource downloadsReader = null;
    if (parts.downloads()) {
      // Roles with the management API read Policy through it; a read gateway through ql3_reader.
      int size = parts.governance() ? 1 : settings.readerPoolSize();
      DataSource reader = pool(PostgresSettings.READER, size);
      downloadsReader = reader;
      downloads = new PostgresDownloads(settings);
      if (!parts.governance()) {
        catalog =
            new OpenedStore.Catalog(
                new JdbcPolicyStore(reader, DIALECT), new JdbcGovernanceStore(reader, DIALECT));
        probeBase("reader", reader);
      }
      probes.add(
          new SchemaProbe(
              "downloads", reader, DOWNLOADS_HISTORY, GatewayMigrations.REQUIRED_VERSION));
    }
    return new OpenedStore(
        "postgres",
        parts,
        Optional.ofNullable(catalog),
        Optional.ofNullable(quota),
        Optional.ofNullable(modelQuota),
        Optional.ofNullable(webhooks),
        Optional.ofNullable(webhookEvents),
        Optional.ofNullable(worker),
        Optional.ofNullable(downloads),
        storedLeases(downloadsReader),
        probes,
        opened);
  }

  /** Checks the base schema through {@code pool}. */
  private void probeBase(String name, DataSource pool) {
    probes.add(new SchemaProbe(name, pool, BASE_HISTORY, PostgresMigrations.REQUIRED_VERSION));
  }

  /** The pool of component role {@code role}, its login remembered for the start-up log. */
  private DataSource pool(String role, int size) {
    logins.add(settings.login(role).username());
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

  /**
   * Read as {@code ql3_reader} (the only login granted the download tables): through its pool where
   * this role opened one, else on a one-off dedicated connection (an operator's occasional read,
   * not worth a pool on a role that opens no reader pool).
   */
  private StoredLeases.Reader storedLeases(DataSource downloadsReader) {
    return () -> {
      try (Connection c =
          downloadsReader != null
              ? downloadsReader.getConnection()
              : PostgresDownloads.readerConnections(settings).open()) {
        return PostgresStoredLeases.read(c);
      } catch (SQLException e) {
        throw new StoreUnavailableException("download leases cannot be read", e);
      }
    };
  }
}
