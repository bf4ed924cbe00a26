package dev.qinglong.app.artifacts;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.gateway.worker.PublicationPass;
import dev.qinglong.gateway.worker.WorkerLease;
import dev.qinglong.gateway.worker.WorkerListener;
import dev.qinglong.gateway.worker.WorkerState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The publication worker (roles {@code worker} and {@code all}): one active per database. It
 * publishes through the backend's publishing store (PostgreSQL: its own one-connection pool as
 * {@code ql3_package_executor}) and holds the backend's worker lock (PostgreSQL: an advisory lock
 * on a dedicated connection of the same login; SQLite: always held, one process). After a pass it
 * deletes artifacts no proposal names once their grace period is over ({@link
 * UnreferencedArtifacts}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WORKER})
public class WorkerConfiguration {
  private static final Logger log = LoggerFactory.getLogger(WorkerConfiguration.class);

  @Bean
  UnreferencedArtifacts unreferencedArtifacts(
      OpenedStore.Worker worker, FileArtifactStore artifacts, ArtifactsProperties properties) {
    return new UnreferencedArtifacts(
        worker.publisher(),
        artifacts,
        properties.unreferencedGrace(),
        properties.cleanupInterval(),
        Clock.systemUTC());
  }

  /**
   * The worker lease: which process of the database is the active worker. Exposed as a bean so that
   * other work of the active worker (webhook delivery) runs on the same lease instead of taking a
   * lock of its own; closed after everything that depends on it.
   */
  @Bean(destroyMethod = "close")
  WorkerLease publicationWorkerLease(
      OpenedStore store,
      OpenedStore.Worker worker,
      FileArtifactStore artifacts,
      UnreferencedArtifacts unreferenced,
      MeterRegistry registry) {
    ArtifactPublisher publisher =
        new ArtifactPublisher(worker.publisher(), artifacts, Clock.systemUTC());
    // Only the active worker passes, so one process per database cleans up.
    PublicationPass pass =
        () -> {
          int published = publisher.publishOnce();
          unreferenced.afterPass();
          return published;
        };
    WorkerLease lease =
        new WorkerLease(
            worker.lock(),
            pass,
            WorkerLease.DEFAULT_STANDBY_RETRY,
            WorkerLease.DEFAULT_PASS_INTERVAL,
            metrics(registry));
    lease.start();
    log.info("worker.started store={}", store.kind());
    return lease;
  }

  /** The lease bean closes the lease; this view of it does not. */
  @Bean(destroyMethod = "")
  PublicationWorker publicationWorker(WorkerLease publicationWorkerLease) {
    return new PublicationWorker(publicationWorkerLease);
  }

  /**
   * {@code qinglong_worker_state{state}} (1 for the current state, 0 otherwise), {@code
   * qinglong_worker_published_total} and {@code qinglong_worker_pass_failures_total}.
   */
  static WorkerListener metrics(MeterRegistry registry) {
    AtomicReference<WorkerState> current = new AtomicReference<>(WorkerState.NEW);
    for (WorkerState s : WorkerState.values()) {
      Gauge.builder("qinglong.worker.state", current, c -> c.get() == s ? 1 : 0)
          .description("Publication worker state (1 = current)")
          .tag("state", s.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
    Counter published =
        Counter.builder("qinglong.worker.published")
            .description("Proposals published by this process's publication worker")
            .register(registry);
    Counter failures =
        Counter.builder("qinglong.worker.pass.failures")
            .description("Publication passes that failed (retried on the next pass)")
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
