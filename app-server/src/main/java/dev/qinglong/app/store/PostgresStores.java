package dev.qinglong.app.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.config.QingLongProperties;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcPolicyStore;
import dev.qinglong.postgres.PostgresDialect;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.PostgresRoles;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.api.MigrationVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL wiring (qinglong.store=postgres). The schema owner connects only at start-up, to
 * bootstrap roles (if asked) and migrate; then each component has its own pool on its own
 * least-privilege role: governance, quota and policy reads on {@code ql3_package_manager}
 * (qinglong.postgres.manager-pool-size, default 2), member writes on {@code ql3_admin}.
 */
public final class PostgresStores {
  private static final Logger log = LoggerFactory.getLogger(PostgresStores.class);

  private PostgresStores() {}

  static QingLongStores open(QingLongProperties properties, DataSourceDecorator decorator) {
    QingLongProperties.Postgres pg = properties.getPostgres();
    if (pg.getUrl() == null || pg.getUrl().isBlank()) {
      throw new IllegalStateException("qinglong.store=postgres needs qinglong.postgres.url");
    }
    try (HikariDataSource owner =
        pool("qinglong-owner", pg.getUrl(), pg.getUsername(), pg.getPassword(), 3, null)) {
      if (pg.isBootstrapRoles()) {
        PostgresRoles.bootstrap(owner);
      }
      int applied = PostgresMigrations.migrate(owner);
      log.info("store.postgres.migrated migrationsApplied={}", applied);
    }
    MigrationVersion required =
        MigrationVersion.fromVersion(Integer.toString(PostgresMigrations.REQUIRED_VERSION));
    List<AutoCloseable> resources = new ArrayList<>();
    try {
      QingLongProperties.RoleLogin managerLogin = pg.login("package-manager");
      QingLongProperties.RoleLogin adminLogin = pg.login("admin");
      HikariDataSource managerPool =
          pool(
              "qinglong-package-manager",
              pg.getUrl(),
              managerLogin.getUsername(),
              managerLogin.getPassword(),
              pg.getManagerPoolSize(),
              PostgresMigrations.SCHEMA);
      resources.add(managerPool);
      HikariDataSource adminPool =
          pool(
              "qinglong-admin",
              pg.getUrl(),
              adminLogin.getUsername(),
              adminLogin.getPassword(),
              pg.getAdminPoolSize(),
              PostgresMigrations.SCHEMA);
      resources.add(adminPool);
      DataSource manager = decorator.decorate("package-manager", managerPool);
      DataSource admin = decorator.decorate("admin", adminPool);
      String history = PostgresMigrations.SCHEMA + "." + PostgresMigrations.HISTORY_TABLE;
      log.info(
          "store.postgres.ready managerRole={} managerPoolSize={} adminRole={}",
          managerLogin.getUsername(),
          pg.getManagerPoolSize(),
          adminLogin.getUsername());
      return new QingLongStores(
          "postgres",
          new SplitPolicyStore(
              new JdbcPolicyStore(manager, PostgresDialect.INSTANCE),
              new JdbcPolicyStore(admin, PostgresDialect.INSTANCE)),
          new JdbcManagementQuotaStore(manager, PostgresDialect.INSTANCE),
          new JdbcGovernanceStore(manager, PostgresDialect.INSTANCE),
          List.of(
              new SchemaProbe("package-manager", manager, history, required),
              new SchemaProbe("admin", admin, history, required)),
          List.copyOf(resources));
    } catch (RuntimeException e) {
      for (AutoCloseable r : resources) {
        try {
          r.close();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /**
   * A pool as every PostgreSQL component of the app opens it: fail fast (3 s), and when {@code
   * schema} is given start even while the database is away (readiness reports it, requests get
   * 503); {@code schema == null} is the owner's start-up pool, which must connect at once.
   */
  public static HikariDataSource pool(
      String name, String url, String username, String password, int size, String schema) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url);
    config.setUsername(username);
    if (password != null && !password.isEmpty()) {
      config.setPassword(password);
    }
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(3_000);
    config.setValidationTimeout(1_000);
    // Start even if the database is momentarily away: readiness reports it, requests get 503.
    config.setInitializationFailTimeout(schema == null ? 1 : -1);
    if (schema != null) {
      config.setSchema(schema);
    }
    config.addDataSourceProperty("ApplicationName", name);
    return new HikariDataSource(config);
  }

  /** Reads through the manager role, writes memberships through the admin role. */
  private static final class SplitPolicyStore implements ProjectPolicyStore {
    private final ProjectPolicyStore reads;
    private final ProjectPolicyStore writes;

    SplitPolicyStore(ProjectPolicyStore reads, ProjectPolicyStore writes) {
      this.reads = reads;
      this.writes = writes;
    }

    @Override
    public Set<Permission> permissionsOf(String projectId, String userId) {
      return reads.permissionsOf(projectId, userId);
    }

    @Override
    public void replaceMember(ProjectMember member) {
      writes.replaceMember(member);
    }

    @Override
    public List<ProjectMember> members(String projectId) {
      return reads.members(projectId);
    }
  }
}
