package dev.qinglong.app.artifacts;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.QingLongProperties;
import dev.qinglong.app.platform.QingLongProperties.DownloadMode;
import dev.qinglong.app.platform.QingLongProperties.Role;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.jdbc.backend.DownloadSettings;
import dev.qinglong.jdbc.backend.StoreBackend;
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

/** Artifact storage (every role) and the download side (roles {@code all} and {@code reader}). */
@Configuration(proxyBeanMethods = false)
public class DownloadsConfiguration {
  private static final Logger log = LoggerFactory.getLogger(DownloadsConfiguration.class);

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
  @ConditionalOnRole({Role.ALL, Role.READER})
  DownloadMetrics downloadMetrics(MeterRegistry registry) {
    return new DownloadMetrics(registry);
  }

  @Bean
  @ConditionalOnRole({Role.ALL, Role.READER})
  DownloadSide downloadSide(
      QingLongProperties properties,
      StoreBackend backend,
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
    QingLongProperties.Downloads d = properties.getDownloads();
    DownloadSettings settings =
        new DownloadSettings(
            d.getMode() == DownloadMode.SHARED,
            d.getRateBytesPerSecond(),
            d.getPerPrincipalBytesPerSecond(),
            d.getSlots(),
            d.getSlot());
    return new DownloadSide(backend.startDownloads(settings, metrics), metrics);
  }
}
