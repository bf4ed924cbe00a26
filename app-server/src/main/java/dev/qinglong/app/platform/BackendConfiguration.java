package dev.qinglong.app.platform;

import dev.qinglong.backend.BackendParts;
import dev.qinglong.backend.DataSourceDecorator;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.webhooks.SecretSealer;
import dev.qinglong.gateway.downloads.DownloadCoordinator;
import dev.qinglong.gateway.lease.StoredLeases;
import dev.qinglong.postgres.backend.PostgresBackend;
import dev.qinglong.postgres.backend.PostgresMigrator;
import dev.qinglong.postgres.backend.PostgresSettings;
import dev.qinglong.sqlite.backend.SqliteBackend;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Chooses the store backend once ({@code qinglong.store}) and opens it for this process's role: the
 * only place that knows which store runs. Each part the role opened becomes its own bean, declared
 * for exactly the roles that have it ({@link Roles#parts}), so a component of a role that lacks a
 * part does not find it instead of asking for it at run time.
 */
@Configuration(proxyBeanMethods = false)
public class BackendConfiguration {
  private static final Logger log = LoggerFactory.getLogger(BackendConfiguration.class);

  /** Component roles whose login can be configured ({@code qinglong.postgres.roles.<role>}). */
  static final List<String> COMPONENT_ROLES =
      List.of(
          PostgresSettings.PACKAGE_MANAGER,
          PostgresSettings.ADMIN,
          PostgresSettings.RUNTIME,
          PostgresSettings.PACKAGE_EXECUTOR,
          PostgresSettings.READER);

  @Bean(destroyMethod = "close")
  OpenedStore openedStore(
      PlatformProperties platform,
      PostgresProperties postgres,
      ModelQuotaProperties ai,
      WebhooksProperties webhooks,
      ObjectProvider<DataSourceDecorator> decorators,
      MeterRegistry registry) {
    DataSourceDecorator decorator =
        PoolMetrics.binding(registry, decorators.getIfAvailable(() -> DataSourceDecorator.NONE));
    Role role = platform.role();
    BackendParts parts = Roles.parts(role, ai.enabled());
    log.info("role={} parts={}", role.name().toLowerCase(Locale.ROOT), parts);
    // Webhook registrations live with the management API, their delivery with the worker.
    Optional<SecretSealer> sealer =
        parts.governance() || parts.worker()
            ? WebhookSealing.sealer(webhooks, platform.store(), platform.dataDir())
            : Optional.empty();
    return switch (platform.store()) {
      case POSTGRES ->
          PostgresBackend.open(postgresSettings(postgres, ai), parts, decorator, sealer);
      case SQLITE ->
          SqliteBackend.open(
              SqliteBackend.file(platform.dataDir()), ai.enabled(), parts, decorator, sealer);
    };
  }

  /** Project Policy and governance: read-write with the management API, read-only for a reader. */
  @Bean
  @ConditionalOnRole({Role.ALL, Role.WRITER, Role.READER})
  OpenedStore.Catalog storeCatalog(OpenedStore store) {
    return part(store.catalog(), "the Project Policy and governance stores");
  }

  @Bean
  @ConditionalOnRole({Role.ALL, Role.WRITER})
  ManagementQuotaStore managementQuotaStore(OpenedStore store) {
    return part(store.managementQuota(), "the management quota store");
  }

  @Bean
  @ConditionalOnRole({Role.ALL, Role.WRITER})
  @ConditionalOnProperty(prefix = "qinglong.ai", name = "enabled", havingValue = "true")
  ModelQuotaStore modelQuotaStore(OpenedStore store) {
    return part(store.modelQuota(), "the model quota store");
  }

  @Bean
  @ConditionalOnRole({Role.ALL, Role.WORKER})
  OpenedStore.Worker storeWorker(OpenedStore store) {
    return part(store.worker(), "the worker's publishing store and lock");
  }

  @Bean
  @ConditionalOnRole({Role.ALL, Role.READER})
  DownloadCoordinator downloadCoordinator(OpenedStore store) {
    return part(store.downloads(), "the download coordinator");
  }

  @Bean
  StoredLeases.Reader storedLeases(OpenedStore store) {
    return store.storedLeases();
  }

  /** A part the role's conditions promise and {@link Roles#parts} opened; they are kept in step. */
  private static <T> T part(java.util.Optional<T> part, String name) {
    return part.orElseThrow(
        () ->
            new IllegalStateException(
                name + " was not opened for this process's role. Indicates a bug."));
  }

  /**
   * The migrate step of the configured store (the other place the store is chosen): every migration
   * as the owner, the AI schema when the feature is on. It takes the properties it needs from the
   * context, so a new store adds its case here and nothing in {@link MigrateCommand}.
   *
   * @return what was applied, for the log
   */
  static String migrate(BeanFactory properties) {
    PlatformProperties platform = properties.getBean(PlatformProperties.class);
    ModelQuotaProperties ai = properties.getBean(ModelQuotaProperties.class);
    return switch (platform.store()) {
      case POSTGRES -> {
        PostgresMigrator.Result r =
            PostgresMigrator.migrate(
                postgresSettings(properties.getBean(PostgresProperties.class), ai), ai.enabled());
        yield "store=postgres base=" + r.base() + " downloads=" + r.downloads() + " ai=" + r.ai();
      }
      case SQLITE ->
          "store=sqlite applied="
              + SqliteBackend.migrate(SqliteBackend.file(platform.dataDir()), ai.enabled());
    };
  }

  /**
   * The settings {@code qinglong.store=postgres} cannot start without, checked before any
   * connection is tried.
   *
   * @throws StartRefusedException naming the missing or wrong property
   */
  static void requireSettings(PostgresProperties pg) {
    String url = pg.url() == null ? "" : pg.url().trim();
    if (url.isEmpty()) {
      throw new StartRefusedException(
          "qinglong.store=postgres needs qinglong.postgres.url, which is not set",
          "Set qinglong.postgres.url to the JDBC URL of the database (for example"
              + " jdbc:postgresql://127.0.0.1:5432/qinglong), or use qinglong.store=sqlite.");
    }
    if (!url.startsWith("jdbc:postgresql:")) {
      int query = url.indexOf('?');
      throw new StartRefusedException(
          "qinglong.postgres.url="
              + (query < 0 ? url : url.substring(0, query) + "?…")
              + " is not a PostgreSQL JDBC URL",
          "Set qinglong.postgres.url to jdbc:postgresql://<host>:<port>/<database>.");
    }
    if (pg.migrate() && (pg.username() == null || pg.username().isBlank())) {
      throw new StartRefusedException(
          "qinglong.postgres.migrate=true (the default) migrates the schema as its owner, but"
              + " qinglong.postgres.username is not set",
          "Set qinglong.postgres.username and qinglong.postgres.password to the schema owner's"
              + " login, or run the migrate step on its own (java -jar app.jar migrate) and"
              + " start this process with qinglong.postgres.migrate=false.");
    }
  }

  /** The {@code qinglong.postgres.*} (and AI pool) properties as the backend's plain settings. */
  public static PostgresSettings postgresSettings(PostgresProperties pg, ModelQuotaProperties ai) {
    requireSettings(pg);
    Map<String, PostgresSettings.Login> logins = new LinkedHashMap<>();
    for (String role : COMPONENT_ROLES) {
      PostgresProperties.RoleLogin login = pg.login(role);
      logins.put(role, new PostgresSettings.Login(login.username(), login.password()));
    }
    PostgresSettings.Login owner =
        pg.username() == null || pg.username().isBlank()
            ? null
            : new PostgresSettings.Login(pg.username(), pg.password());
    return new PostgresSettings(
        pg.url(),
        owner,
        logins,
        pg.bootstrapRoles(),
        pg.migrate(),
        pg.managerPoolSize(),
        pg.adminPoolSize(),
        ai.runtimePoolSize(),
        pg.readerPoolSize(),
        new PostgresSettings.Timeouts(
            pg.connectTimeout(), pg.socketTimeout(), pg.statementTimeout(), pg.lockTimeout()));
  }
}
