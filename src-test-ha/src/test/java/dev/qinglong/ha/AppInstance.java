package dev.qinglong.ha;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.governance.PluginPackageGovernance;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.quota.ManagementQuota;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.jdbc.JdbcPolicyStore;
import dev.qinglong.postgres.PostgresDialect;
import dev.qinglong.postgres.PostgresLogins;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.testkit.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Set;

/**
 * One "app service instance": its own Hikari pools (as {@code ql3_package_manager}, at most two
 * connections like a replica, {@code ql3_admin} (also model-policy writes), and {@code ql3_runtime}
 * for the model quota store), schema {@code qinglong}, the core services wired over the PostgreSQL
 * stores, and its own {@link TcpProxy} in front of the primary.
 */
final class AppInstance implements AutoCloseable {
  final String name;
  final TcpProxy proxy;
  final HikariDataSource manager;
  final HikariDataSource admin;
  final HikariDataSource runtime;
  final ModelQuotaStore modelQuota;
  final ProjectPolicy policy;
  final PluginPackageGovernance governance;
  private final ManagementQuotaPolicy quotaPolicy;

  AppInstance(String name, int primaryPort, ManagementQuotaPolicy quotaPolicy) throws IOException {
    this.name = name;
    this.proxy = new TcpProxy("127.0.0.1", primaryPort);
    this.manager = pool(name + "-manager", PostgresLogins.PACKAGE_MANAGER, 2);
    this.admin = pool(name + "-admin", PostgresLogins.ADMIN, 1);
    this.runtime = pool(name + "-runtime", PostgresLogins.RUNTIME, 2);
    // Policy writes as ql3_admin, as PostgresBackend wires them (the runtime may only read them).
    this.modelQuota = new JdbcModelQuotaStore(runtime, admin, PostgresDialect.INSTANCE);
    this.policy =
        new ProjectPolicy(new JdbcPolicyStore(admin, PostgresDialect.INSTANCE), Set.of("admin"));
    this.quotaPolicy = quotaPolicy;
    this.governance = newGovernance();
  }

  /**
   * This instance's governance as a restarted process would have it: the same pools, a new quota
   * store, so no bucket held full by the hot-bucket fast path. For a gate that moves a window by
   * hand: an operator's edit that a running process, holding the bucket full, does not see.
   */
  PluginPackageGovernance newGovernance() {
    ManagementQuota quota =
        new ManagementQuota(
            new JdbcManagementQuotaStore(manager, PostgresDialect.INSTANCE),
            quotaPolicy,
            (operation, outcome) -> {});
    return new PluginPackageGovernance(
        policy,
        quota,
        new JdbcGovernanceStore(manager, PostgresDialect.INSTANCE),
        Clock.systemUTC());
  }

  private HikariDataSource pool(String poolName, String role, int size) {
    HikariConfig c = new HikariConfig();
    c.setPoolName(poolName);
    c.setJdbcUrl(
        "jdbc:postgresql://127.0.0.1:"
            + proxy.port()
            + "/"
            + PgNode.DATABASE
            + "?sslmode=disable&gssEncMode=disable&connectTimeout=5&socketTimeout=30"
            + "&ApplicationName="
            + poolName);
    c.setUsername(role);
    c.setSchema(PostgresMigrations.SCHEMA);
    c.setMaximumPoolSize(size);
    c.setMinimumIdle(size);
    // Fail fast while fenced: a request gets 503 (StoreUnavailable) instead of hanging.
    c.setConnectionTimeout(5_000);
    c.setValidationTimeout(1_000);
    c.setInitializationFailTimeout(-1);
    // Non-UTC and not a whole hour off UTC, as in the other PostgreSQL tests.
    c.setConnectionInitSql("SET TIME ZONE 'Asia/Kolkata'");
    return new HikariDataSource(c);
  }

  @Override
  public void close() {
    manager.close();
    admin.close();
    runtime.close();
    try {
      proxy.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
