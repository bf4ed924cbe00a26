package dev.qinglong.app.platform;

import dev.qinglong.app.platform.QingLongProperties.Role;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.jdbc.backend.BackendParts;
import dev.qinglong.jdbc.backend.DataSourceDecorator;
import dev.qinglong.jdbc.backend.StoreBackend;
import dev.qinglong.postgres.backend.PostgresBackend;
import dev.qinglong.postgres.backend.PostgresSettings;
import dev.qinglong.sqlite.backend.SqliteBackend;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Chooses the store backend once ({@code qinglong.store}) and opens it for this process's role: the
 * only place that knows which store runs. Everything else asks the {@link StoreBackend} for ports.
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
  StoreBackend storeBackend(
      QingLongProperties properties, ObjectProvider<DataSourceDecorator> decorators) {
    DataSourceDecorator decorator = decorators.getIfAvailable(() -> DataSourceDecorator.NONE);
    Role role = properties.getRole();
    BackendParts parts = Roles.parts(role, properties.getAi().isEnabled());
    log.info("role={} parts={}", role.name().toLowerCase(Locale.ROOT), parts);
    return open(properties, parts, decorator);
  }

  /** Project Policy: every role but the worker authorises requests. */
  @Bean
  @ConditionalOnRole({Role.ALL, Role.WRITER, Role.READER})
  ProjectPolicy projectPolicy(StoreBackend backend, QingLongProperties properties) {
    return new ProjectPolicy(backend.policy(), Set.copyOf(properties.getAuth().getGlobalAdmins()));
  }

  static StoreBackend open(
      QingLongProperties properties, BackendParts parts, DataSourceDecorator decorator) {
    return switch (properties.getStore()) {
      case POSTGRES -> PostgresBackend.open(postgresSettings(properties), parts, decorator);
      case SQLITE ->
          SqliteBackend.open(
              SqliteBackend.file(properties.getDataDir()),
              properties.getAi().isEnabled(),
              parts,
              decorator);
    };
  }

  /** The {@code qinglong.postgres.*} properties as the backend's plain settings. */
  public static PostgresSettings postgresSettings(QingLongProperties properties) {
    QingLongProperties.Postgres pg = properties.getPostgres();
    Map<String, PostgresSettings.Login> logins = new LinkedHashMap<>();
    for (String role : COMPONENT_ROLES) {
      QingLongProperties.RoleLogin login = pg.login(role);
      logins.put(role, new PostgresSettings.Login(login.getUsername(), login.getPassword()));
    }
    PostgresSettings.Login owner =
        pg.getUsername() == null || pg.getUsername().isBlank()
            ? null
            : new PostgresSettings.Login(pg.getUsername(), pg.getPassword());
    return new PostgresSettings(
        pg.getUrl(),
        owner,
        logins,
        pg.isBootstrapRoles(),
        pg.isMigrate(),
        pg.getManagerPoolSize(),
        pg.getAdminPoolSize(),
        properties.getAi().getRuntimePoolSize(),
        pg.getReaderPoolSize());
  }
}
