package dev.qinglong.postgres.backend;

import dev.qinglong.gateway.downloads.DownloadCoordination;
import dev.qinglong.gateway.downloads.DownloadCoordinator;
import dev.qinglong.gateway.downloads.StandaloneDownloads;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.LeaseTimings;
import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import dev.qinglong.postgres.leases.DedicatedConnectionFactory;
import dev.qinglong.postgres.leases.PostgresDownloadLease;
import dev.qinglong.postgres.leases.PostgresWorkerLock;
import dev.qinglong.postgres.leases.StandaloneBarrierKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The download coordination on PostgreSQL (docs/downloads.md): worker lock, standalone barrier,
 * shared slot leases, each on a dedicated connection.
 */
final class PostgresDownloads implements DownloadCoordinator {
  private static final Logger log = LoggerFactory.getLogger(PostgresDownloads.class);

  private final PostgresSettings settings;

  PostgresDownloads(PostgresSettings settings) {
    this.settings = settings;
  }

  /** The publication worker's lock, on a dedicated connection as {@code ql3_package_executor}. */
  static PostgresWorkerLock workerLock(PostgresSettings settings) {
    PostgresSettings.Login login = settings.login(PostgresSettings.PACKAGE_EXECUTOR);
    return new PostgresWorkerLock(
        DedicatedConnectionFactory.driverManager(
            settings.url(),
            login.username(),
            login.password(),
            "qinglong-worker-lock",
            settings.timeouts().connect(),
            settings.timeouts().socket()));
  }

  /** Dedicated connections as {@code ql3_reader}, the login granted the download tables. */
  static DedicatedConnectionFactory readerConnections(PostgresSettings settings) {
    PostgresSettings.Login login = settings.login(PostgresSettings.READER);
    return PostgresDownloadLease.connections(
        settings.url(), login.username(), login.password(), LeaseTimings.DEFAULTS);
  }

  /** Shared: takes the slot lease (slot 0 stores the policy; a mismatch or a live slot refuses). */
  @Override
  public DownloadCoordination shared(
      SharedDownloadPolicy policy, int slot, LeaseListener listener) {
    try {
      PostgresDownloadLease lease =
          PostgresDownloadLease.start(readerConnections(settings), policy, slot, listener);
      log.info(
          "downloads.shared slot={} slots={} shareBytesPerSecond={} sharePerPrincipal={}",
          slot,
          policy.slots(),
          lease.share().bytesPerSecond(),
          lease.share().perPrincipalBytesPerSecond());
      return new SharedLeaseDownloads(lease);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "shared downloads cannot start on slot "
              + slot
              + " of "
              + policy.slots()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Standalone: takes the mode barrier exclusively; when another standalone server holds it this
   * process starts without downloads (several management replicas on one database), while shared
   * gateways or a stored shared policy refuse the start.
   */
  @Override
  public DownloadCoordination standalone(DownloadRates rates) {
    StandaloneBarrierKeeper keeper;
    try {
      keeper =
          StandaloneBarrierKeeper.start(
              readerConnections(settings), false, StandaloneBarrierKeeper.DEFAULT_PERIOD);
    } catch (RuntimeException e) {
      throw new IllegalStateException("standalone downloads cannot start: " + e.getMessage(), e);
    }
    if (keeper.held()) {
      log.info(
          "downloads.standalone rateBytesPerSecond={} perPrincipalBytesPerSecond={} barrier=held",
          rates.bytesPerSecond(),
          rates.perPrincipalBytesPerSecond());
    } else {
      log.warn(
          "downloads.standalone-elsewhere: another process is this database's standalone download"
              + " server; this one serves no downloads until it takes the barrier over");
    }
    return StandaloneDownloads.withBarrier(
        rates,
        new StandaloneDownloads.Barrier() {
          @Override
          public String state() {
            return switch (keeper.state()) {
              case HELD -> StandaloneDownloads.HELD;
              case HELD_ELSEWHERE -> StandaloneDownloads.HELD_ELSEWHERE;
              case NOT_HELD -> StandaloneDownloads.NOT_HELD;
            };
          }

          @Override
          public void close() {
            keeper.close();
          }
        });
  }
}
