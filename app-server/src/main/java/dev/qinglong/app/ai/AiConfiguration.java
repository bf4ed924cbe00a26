package dev.qinglong.app.ai;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.config.QingLongProperties;
import dev.qinglong.app.store.DataSourceDecorator;
import dev.qinglong.app.store.PostgresStores;
import dev.qinglong.app.store.QingLongStores;
import dev.qinglong.core.ai.ModelInvocationQuota;
import dev.qinglong.core.ai.ModelQuotaListener;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.postgres.PostgresDialect;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.SqliteDialect;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The optional model-invocation quota feature (ADR 001, DESIGN §5), loaded only when {@code
 * qinglong.ai.enabled=true}. Disabled, none of these beans exist, no AI migration runs and the AI
 * routes are unknown (404).
 *
 * <p>Its store gets its own pool, opened after the base store ({@link QingLongStores}) migrated:
 * SQLite a second one-connection pool on the same file (the file's write lock still serialises
 * every transaction); PostgreSQL a pool logging in as {@code ql3_runtime} ({@code
 * qinglong.postgres.roles.runtime.*}, schema {@code qinglong}) after the schema owner applied the
 * AI migrations. The management quota of the usage reads keeps using the base store ({@code
 * ql3_package_manager} on PostgreSQL).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "qinglong.ai", name = "enabled", havingValue = "true")
public class AiConfiguration {
  private static final Logger log = LoggerFactory.getLogger(AiConfiguration.class);

  @Bean(destroyMethod = "close")
  AiStore aiStore(
      QingLongProperties properties,
      QingLongStores baseStores,
      ObjectProvider<DataSourceDecorator> decorators) {
    DataSourceDecorator decorator =
        decorators.getIfAvailable(() -> (component, dataSource) -> dataSource);
    if (properties.getStore() == QingLongProperties.Store.POSTGRES) {
      return openPostgres(properties, decorator);
    }
    return openSqlite(properties, decorator);
  }

  @Bean
  ModelQuotaListener modelQuotaListener(MeterRegistry registry) {
    return new MicrometerModelQuotaListener(registry);
  }

  @Bean
  ModelInvocationQuota modelInvocationQuota(
      ProjectPolicy policy,
      ManagementQuota managementQuota,
      AiStore store,
      ModelQuotaListener listener) {
    return new ModelInvocationQuota(policy, managementQuota, store.store(), listener);
  }

  static AiStore openSqlite(QingLongProperties properties, DataSourceDecorator decorator) {
    Path file = properties.getDataDir().resolve("qinglong.db").toAbsolutePath().normalize();
    HikariDataSource pool = SqliteDatabase.open(file);
    try {
      int applied = SqliteDatabase.migrateAi(pool);
      log.info("ai.sqlite.ready file={} aiMigrationsApplied={}", file, applied);
      DataSource ds = decorator.decorate("sqlite-ai", pool);
      return new AiStore(
          "sqlite", new JdbcModelQuotaStore(ds, SqliteDialect.INSTANCE), applied, List.of(pool));
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  static AiStore openPostgres(QingLongProperties properties, DataSourceDecorator decorator) {
    QingLongProperties.Postgres pg = properties.getPostgres();
    int applied;
    try (HikariDataSource owner =
        PostgresStores.pool(
            "qinglong-owner-ai", pg.getUrl(), pg.getUsername(), pg.getPassword(), 3, null)) {
      applied = PostgresMigrations.migrateAi(owner);
    }
    QingLongProperties.RoleLogin login = pg.login("runtime");
    HikariDataSource runtime =
        PostgresStores.pool(
            "qinglong-runtime",
            pg.getUrl(),
            login.getUsername(),
            login.getPassword(),
            properties.getAi().getRuntimePoolSize(),
            PostgresMigrations.SCHEMA);
    try {
      DataSource ds = decorator.decorate("runtime", runtime);
      log.info(
          "ai.postgres.ready runtimeRole={} runtimePoolSize={} aiMigrationsApplied={}",
          login.getUsername(),
          properties.getAi().getRuntimePoolSize(),
          applied);
      return new AiStore(
          "postgres",
          new JdbcModelQuotaStore(ds, PostgresDialect.INSTANCE),
          applied,
          List.of(runtime));
    } catch (RuntimeException e) {
      runtime.close();
      throw e;
    }
  }
}
