package dev.qinglong.app.artifacts;

import dev.qinglong.app.http.ArtifactRoutes;
import dev.qinglong.app.http.RequestShieldFilter.OwnBodyCap;
import dev.qinglong.app.http.RequestShieldFilter.OwnBudget;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.PlatformProperties;
import dev.qinglong.app.platform.Role;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.gateway.downloads.DownloadCoordination;
import dev.qinglong.gateway.downloads.DownloadCoordinator;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
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
  FileArtifactStore fileArtifactStore(PlatformProperties platform, ArtifactsProperties artifacts) {
    try {
      FileArtifactStore store =
          platform.role() == Role.READER
              ? FileArtifactStore.forReader(platform.dataDir(), Optional.empty())
              : FileArtifactStore.forWriter(platform.dataDir(), artifacts.maxBytes());
      log.info(
          "artifacts.storage dir={} storageId={} maxBytes={}",
          FileArtifactStore.artifactsDir(platform.dataDir()).toAbsolutePath().normalize(),
          store.storageId(),
          artifacts.maxBytes());
      return store;
    } catch (IOException e) {
      throw new UncheckedIOException("artifact storage cannot be opened: " + e.getMessage(), e);
    }
  }

  /**
   * Artifact uploads stream their body under {@code qinglong.artifacts.max-bytes}, not the shield's
   * JSON cap; the shield checks the declared length against it.
   */
  @Bean
  OwnBodyCap artifactUploadBodyCap(ArtifactsProperties artifacts) {
    return new OwnBodyCap(ArtifactRoutes::isUpload, artifacts.maxBytes());
  }

  /**
   * Downloads hold a request as long as their reader takes: they count against {@code
   * qinglong.downloads.max-concurrent}, not the shield's total, so they never take the API's slots.
   */
  @Bean
  @ConditionalOnRole({Role.ALL, Role.READER})
  OwnBudget downloadBudget(DownloadsProperties downloads) {
    return new OwnBudget(ArtifactRoutes::isDownload, downloads.maxConcurrent());
  }

  /**
   * Tomcat copies every blocking write into the connection's socket write buffer and sends it one
   * buffer per system call; at its default 8 KiB an unthrottled download spent its time in small
   * writes (docs/benchmarks.md, "Downloads"). Only in the roles that serve downloads.
   */
  @Bean
  @ConditionalOnRole({Role.ALL, Role.READER})
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> downloadSocketWriteBuffer(
      DownloadsProperties downloads) {
    String bytes = Integer.toString(downloads.socketWriteBufferBytes());
    return factory ->
        factory.addConnectorCustomizers(
            connector -> {
              if (!connector.setProperty("socket.appWriteBufSize", bytes)) {
                throw new IllegalStateException("the connector has no socket.appWriteBufSize");
              }
            });
  }

  @Bean
  @ConditionalOnRole({Role.ALL, Role.READER})
  DownloadMetrics downloadMetrics(MeterRegistry registry) {
    return new DownloadMetrics(registry);
  }

  /**
   * Starts the download side with this process's {@code qinglong.downloads.*} on the store's
   * coordinator: a shared slot lease, or the standalone budget. Closing it releases what it holds
   * in the database.
   *
   * @throws IllegalStateException with an operator-readable message when this process may not start
   *     its download side
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnRole({Role.ALL, Role.READER})
  DownloadSide downloadSide(
      DownloadsProperties downloads,
      DownloadCoordinator coordinator,
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
    DownloadCoordination coordination =
        downloads.mode() == DownloadsProperties.Mode.SHARED
            ? coordinator.shared(sharedPolicy(downloads), downloads.slot(), metrics)
            : coordinator.standalone(
                new DownloadRates(
                    downloads.rateBytesPerSecond(), downloads.perPrincipalBytesPerSecond()));
    return new DownloadSide(coordination, metrics);
  }

  private static SharedDownloadPolicy sharedPolicy(DownloadsProperties downloads) {
    try {
      return new SharedDownloadPolicy(
          downloads.rateBytesPerSecond(),
          downloads.perPrincipalBytesPerSecond(),
          downloads.slots());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("qinglong.downloads: " + e.getMessage(), e);
    }
  }
}
