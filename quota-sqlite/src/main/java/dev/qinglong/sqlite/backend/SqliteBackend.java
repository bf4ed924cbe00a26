package dev.qinglong.sqlite.backend;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.backend.BackendParts;
import dev.qinglong.backend.DataSourceDecorator;
import dev.qinglong.backend.OpenedParts;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.backend.SchemaProbe;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.webhooks.SecretSealer;
import dev.qinglong.core.webhooks.WebhookEventOutbox;
import dev.qinglong.core.webhooks.WebhookStore;
import dev.qinglong.gateway.downloads.DownloadCoordination;
import dev.qinglong.gateway.downloads.DownloadCoordinator;
import dev.qinglong.gateway.downloads.StandaloneDownloads;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import dev.qinglong.gateway.lease.StoredLeases;
import dev.qinglong.gateway.worker.WorkerLock;
import dev.qinglong.jdbc.JdbcDialect;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.jdbc.JdbcPolicyStore;
import dev.qinglong.jdbc.JdbcWebhookEventOutbox;
import dev.qinglong.jdbc.JdbcWebhookStore;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.SqliteDialect;
import dev.qinglong.sqlite.SqliteProcessLock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
public final class SqliteBackend {
  private static final Logger log = LoggerFactory.getLogger(SqliteBackend.class);

  private static final JdbcDialect DIALECT = SqliteDialect.INSTANCE;

  /** One process per store: standalone with the whole budget, nothing to coordinate. */
  private static final DownloadCoordinator DOWNLOADS =
      new DownloadCoordinator() {
        @Override
        public DownloadCoordination standalone(DownloadRates rates) {
          log.info(
              "downloads.standalone rateBytesPerSecond={} perPrincipalBytesPerSecond={}"
                  + " barrier=false",
              rates.bytesPerSecond(),
              rates.perPrincipalBytesPerSecond());
          return StandaloneDownloads.alone(rates);
        }

        @Override
        public DownloadCoordination shared(
            SharedDownloadPolicy policy, int slot, LeaseListener listener) {
          throw new IllegalStateException(SHARED_NEEDS_POSTGRES);
        }
      };

  /** Why shared downloads cannot run on SQLite, as the start-up error says it. */
  public static final String SHARED_NEEDS_POSTGRES =
      "qinglong.downloads.mode=shared needs qinglong.store=postgres (the leases live there)";

  private SqliteBackend() {}

  /** The database file under a data directory. */
  public static Path file(Path dataDir) {
    return dataDir.resolve("qinglong.db").toAbsolutePath().normalize();
  }

  /**
   * Opens {@code file}, applies the base migrations (and the AI ones when {@code ai}) and wires
   * {@code parts} over one pool.
   */
  public static OpenedStore open(
      Path file, boolean ai, BackendParts parts, DataSourceDecorator decorator) {
    return open(file, ai, parts, decorator, Optional.empty());
  }

  /**
   * As {@link #open(Path, boolean, BackendParts, DataSourceDecorator)}, with the webhook stores
   * (registrations and delivery, over the one pool) when {@code webhookSealer} is present.
   */
  public static OpenedStore open(
      Path file,
      boolean ai,
      BackendParts parts,
      DataSourceDecorator decorator,
      Optional<SecretSealer> webhookSealer) {
    OpenedParts opened = new OpenedParts();
    try {
      // One process per file: a second one is refused here, before it migrates or writes.
      opened.add(SqliteProcessLock.acquire(file));
      HikariDataSource pool = opened.add(SqliteDatabase.open(file));
      int applied = SqliteDatabase.migrate(pool);
      int aiApplied = ai ? SqliteDatabase.migrateAi(pool) : 0;
      DataSource ds = decorator.decorate("sqlite", pool);
      JdbcGovernanceStore governance = new JdbcGovernanceStore(ds, DIALECT);
      List<SchemaProbe> probes = new ArrayList<>();
      probes.add(
          new SchemaProbe(
              "sqlite", ds, SqliteDatabase.HISTORY_TABLE, SqliteDatabase.REQUIRED_VERSION));
      ManagementQuotaStore quota =
          parts.governance() ? new JdbcManagementQuotaStore(ds, DIALECT) : null;
      ModelQuotaStore modelQuota = null;
      if (parts.modelQuota()) {
        DataSource aiDs = decorator.decorate("sqlite-ai", pool);
        modelQuota = new JdbcModelQuotaStore(aiDs, DIALECT);
        probes.add(
            new SchemaProbe(
                "sqlite-ai",
                aiDs,
                SqliteDatabase.AI_HISTORY_TABLE,
                SqliteDatabase.AI_REQUIRED_VERSION));
      }
      Optional<WebhookStore> webhooks =
          webhookSealer.map(s -> new JdbcWebhookStore(ds, DIALECT, s));
      // Events that report no change of their own (a refusal, a threshold), once by their key.
      Optional<WebhookEventOutbox> webhookEvents =
          webhooks.map(w -> new JdbcWebhookEventOutbox(ds, DIALECT));
      OpenedStore.Worker worker =
          parts.worker()
              ? new OpenedStore.Worker(
                  governance,
                  WorkerLock.singleProcess(),
                  webhooks,
                  webhookEvents,
                  webhookEvents.map(e -> new JdbcModelQuotaStore(ds, DIALECT)))
              : null;
      log.info(
          "store.sqlite.ready file={} migrationsApplied={} aiMigrationsApplied={} parts={}",
          file,
          applied,
          aiApplied,
          parts);
      return new OpenedStore(
          "sqlite",
          parts,
          Optional.of(new OpenedStore.Catalog(new JdbcPolicyStore(ds, DIALECT), governance)),
          Optional.ofNullable(quota),
          Optional.ofNullable(modelQuota),
          parts.governance() ? webhooks : Optional.empty(),
          parts.governance() ? webhookEvents : Optional.empty(),
          Optional.ofNullable(worker),
          parts.downloads() ? Optional.of(DOWNLOADS) : Optional.empty(),
          StoredLeases.Reader.NONE,
          probes,
          opened);
    } catch (RuntimeException e) {
      throw opened.closeAfter(e);
    }
  }

  /** The migrate step on SQLite: what {@link #open} applies, without opening anything else. */
  public static int migrate(Path file, boolean ai) {
    try (SqliteProcessLock lock = SqliteProcessLock.acquire(file);
        HikariDataSource pool = SqliteDatabase.open(file)) {
      return SqliteDatabase.migrate(pool) + (ai ? SqliteDatabase.migrateAi(pool) : 0);
    }
  }
}
