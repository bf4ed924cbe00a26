package dev.qinglong.app.store;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.config.QingLongProperties;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcPolicyStore;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.SqliteDialect;
import java.nio.file.Path;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Opens the store selected by {@code qinglong.store} and runs its migrations at start-up. */
@Configuration(proxyBeanMethods = false)
public class StoreConfiguration {
  private static final Logger log = LoggerFactory.getLogger(StoreConfiguration.class);

  @Bean(destroyMethod = "close")
  QingLongStores qingLongStores(
      QingLongProperties properties, ObjectProvider<DataSourceDecorator> decorators) {
    DataSourceDecorator decorator =
        decorators.getIfAvailable(() -> (component, dataSource) -> dataSource);
    if (properties.getStore() == QingLongProperties.Store.POSTGRES) {
      return PostgresStores.open(properties, decorator);
    }
    return openSqlite(properties, decorator);
  }

  static QingLongStores openSqlite(QingLongProperties properties, DataSourceDecorator decorator) {
    Path file = properties.getDataDir().resolve("qinglong.db").toAbsolutePath().normalize();
    HikariDataSource pool = SqliteDatabase.open(file);
    try {
      int applied = SqliteDatabase.migrate(pool);
      MigrationVersion required = requiredVersion(pool, SqliteDatabase.MIGRATIONS, null);
      log.info(
          "store.sqlite.ready file={} migrationsApplied={} schemaVersion={}",
          file,
          applied,
          required);
      DataSource ds = decorator.decorate("sqlite", pool);
      return new QingLongStores(
          "sqlite",
          new JdbcPolicyStore(ds, SqliteDialect.INSTANCE),
          new JdbcManagementQuotaStore(ds, SqliteDialect.INSTANCE),
          new JdbcGovernanceStore(ds, SqliteDialect.INSTANCE),
          List.of(new SchemaProbe("sqlite", ds, "flyway_schema_history", required)),
          List.of(pool));
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  /** The highest migration version on the classpath at {@code location}: what this build needs. */
  static MigrationVersion requiredVersion(DataSource dataSource, String location, String schema) {
    var config = Flyway.configure().dataSource(dataSource).locations(location);
    if (schema != null) {
      config = config.schemas(schema).defaultSchema(schema);
    }
    MigrationVersion max = null;
    for (MigrationInfo info : config.load().info().all()) {
      if (info.getVersion() != null
          && info.getState().isResolved()
          && (max == null || info.getVersion().compareTo(max) > 0)) {
        max = info.getVersion();
      }
    }
    if (max == null) {
      throw new IllegalStateException("no migrations found at " + location + ". Indicates a bug.");
    }
    return max;
  }
}
