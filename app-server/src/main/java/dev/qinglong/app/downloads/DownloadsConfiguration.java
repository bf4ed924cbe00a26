package dev.qinglong.app.downloads;

import dev.qinglong.app.config.QingLongProperties;
import dev.qinglong.app.config.QingLongProperties.Role;
import dev.qinglong.app.store.QingLongStores;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Artifact storage, the shared-download schema and the download side of this process. */
@Configuration(proxyBeanMethods = false)
public class DownloadsConfiguration {
  private static final Logger log = LoggerFactory.getLogger(DownloadsConfiguration.class);

  /** Runs after the base migrations (it needs the stores). */
  @Bean
  GatewaySchema gatewaySchema(QingLongProperties properties, QingLongStores stores) {
    return GatewaySchema.migrate(properties);
  }

  /**
   * {@code <data-dir>/artifacts}: a reader only verifies the storage identity (and refuses to start
   * without one); every other role may create it.
   */
  @Bean
  FileArtifactStore fileArtifactStore(QingLongProperties properties) {
    try {
      FileArtifactStore store =
          properties.getRole() == Role.READER
              ? FileArtifactStore.forReader(properties.getDataDir(), Optional.empty())
              : FileArtifactStore.forWriter(
                  properties.getDataDir(), properties.getArtifacts().getMaxBytes());
      log.info(
          "artifacts.storage dir={} storageId={} maxBytes={}",
          FileArtifactStore.artifactsDir(properties.getDataDir()).toAbsolutePath().normalize(),
          store.storageId(),
          properties.getArtifacts().getMaxBytes());
      return store;
    } catch (IOException e) {
      throw new UncheckedIOException("artifact storage cannot be opened: " + e.getMessage(), e);
    }
  }

  @Bean
  DownloadMetrics downloadMetrics(MeterRegistry registry) {
    return new DownloadMetrics(registry);
  }

  @Bean(destroyMethod = "close")
  DownloadServer downloadServer(
      QingLongProperties properties,
      GatewaySchema schema,
      DownloadMetrics metrics,
      ApplicationEventPublisher events) {
    // Lease loss is terminal: refuse traffic and report liveness broken so the orchestrator
    // restarts the process (a restart gets a new owner and generation).
    metrics.onLost(
        () -> {
          log.error("downloads.lease-lost: payload stopped; this process must be restarted");
          AvailabilityChangeEvent.publish(events, metrics, ReadinessState.REFUSING_TRAFFIC);
          AvailabilityChangeEvent.publish(events, metrics, LivenessState.BROKEN);
        });
    return DownloadServer.start(properties, metrics);
  }
}
