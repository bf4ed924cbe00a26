package dev.qinglong.app.worker;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.config.QingLongProperties;
import dev.qinglong.app.config.QingLongProperties.Role;
import dev.qinglong.app.store.PostgresStores;
import dev.qinglong.app.store.QingLongStores;
import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.gateway.postgres.DedicatedConnectionFactory;
import dev.qinglong.gateway.postgres.PostgresWorkerLock;
import dev.qinglong.gateway.worker.WorkerLease;
import dev.qinglong.gateway.worker.WorkerListener;
import dev.qinglong.gateway.worker.WorkerLock;
import dev.qinglong.gateway.worker.WorkerState;
import dev.qinglong.jdbc.JdbcGovernanceStore;
import dev.qinglong.postgres.PostgresDialect;
import dev.qinglong.postgres.PostgresMigrations;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The completion worker (roles {@code worker} and {@code all}): one active per database. On
 * PostgreSQL it publishes through its own one-connection pool as {@code ql3_package_executor} and
 * holds the worker lock on a dedicated connection of the same login; on SQLite (one process) the
 * lock is {@link WorkerLock#singleProcess()}.
 */
@Configuration(proxyBeanMethods = false)
public class WorkerConfiguration {
  private static final Logger log = LoggerFactory.getLogger(WorkerConfiguration.class);

  @Bean(destroyMethod = "close")
  CompletionWorker completionWorker(
      QingLongProperties properties,
      QingLongStores stores,
      FileArtifactStore artifacts,
      MeterRegistry registry) {
    Role role = properties.getRole();
    if (role != Role.ALL && role != Role.WORKER) {
      return CompletionWorker.none();
    }
    GovernanceStore governance;
    WorkerLock lock;
    AutoCloseable resources;
    if (properties.getStore() == QingLongProperties.Store.POSTGRES) {
      QingLongProperties.Postgres pg = properties.getPostgres();
      QingLongProperties.RoleLogin login = pg.login("package-executor");
      HikariDataSource pool = executorPool(pg, login);
      governance = new JdbcGovernanceStore(pool, PostgresDialect.INSTANCE);
      lock =
          new PostgresWorkerLock(
              DedicatedConnectionFactory.driverManager(
                  pg.getUrl(),
                  login.getUsername(),
                  login.getPassword(),
                  "qinglong-worker-lock",
                  Duration.ofSeconds(5),
                  Duration.ofSeconds(10)));
      resources = pool;
    } else {
      governance = stores.governanceStore();
      lock = WorkerLock.singleProcess();
      resources = () -> {};
    }
    WorkerLease lease =
        new WorkerLease(
            lock,
            new ArtifactPublisher(governance, artifacts, Clock.systemUTC()),
            WorkerLease.DEFAULT_STANDBY_RETRY,
            WorkerLease.DEFAULT_PASS_INTERVAL,
            metrics(registry));
    lease.start();
    log.info("worker.started store={}", stores.kind());
    return new CompletionWorker(lease, resources);
  }

  private static HikariDataSource executorPool(
      QingLongProperties.Postgres pg, QingLongProperties.RoleLogin login) {
    return PostgresStores.pool(
        "qinglong-package-executor",
        pg.getUrl(),
        login.getUsername(),
        login.getPassword(),
        1,
        PostgresMigrations.SCHEMA);
  }

  /**
   * {@code qinglong_worker_state{state}} (1 for the current state, 0 otherwise), {@code
   * qinglong_worker_published_total} and {@code qinglong_worker_pass_failures_total}.
   */
  static WorkerListener metrics(MeterRegistry registry) {
    AtomicReference<WorkerState> current = new AtomicReference<>(WorkerState.NEW);
    for (WorkerState s : WorkerState.values()) {
      Gauge.builder("qinglong.worker.state", current, c -> c.get() == s ? 1 : 0)
          .description("Completion worker state (1 = current)")
          .tag("state", s.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
    Counter published =
        Counter.builder("qinglong.worker.published")
            .description("Proposals published by this process's completion worker")
            .register(registry);
    Counter failures =
        Counter.builder("qinglong.worker.pass.failures")
            .description("Completion passes that failed (retried on the next pass)")
            .register(registry);
    return new WorkerListener() {
      @Override
      public void onStateChanged(WorkerState state) {
        current.set(state);
      }

      @Override
      public void onPass(int n) {
        published.increment(n);
      }

      @Override
      public void onPassFailed(RuntimeException cause) {
        failures.increment();
      }
    };
  }
}
