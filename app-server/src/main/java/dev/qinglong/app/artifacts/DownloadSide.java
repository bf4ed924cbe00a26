package dev.qinglong.app.artifacts;

import dev.qinglong.gateway.downloads.DownloadCoordination;
import dev.qinglong.gateway.governor.DownloadGovernor;
import java.util.Map;

/**
 * The download side of a process that serves downloads (roles {@code all} and {@code reader}, ADR
 * 002): the governor that paces payload, and the store's coordination that says at which rates and
 * whether payload may flow (standalone barrier or shared slot lease). Closing it releases the
 * coordination (the lease or the barrier) before the store's pools close.
 */
public final class DownloadSide implements AutoCloseable {
  private final DownloadCoordination coordination;
  private final DownloadGovernor governor;

  DownloadSide(DownloadCoordination coordination, DownloadMetrics metrics) {
    this.coordination = coordination;
    this.governor = new DownloadGovernor(coordination.rates(), coordination.gate(), metrics);
  }

  /** The governor every payload chunk passes. */
  public DownloadGovernor governor() {
    return governor;
  }

  /**
   * Whether payload may flow now: false for a standalone process that is not the database's
   * download server, and for good after a shared lease loss.
   */
  public boolean mayServe() {
    return coordination.serves() && governor.mayServe();
  }

  /** Whether payload stopped for good (the shared lease is lost): readiness is DOWN. */
  public boolean halted() {
    return coordination.halted();
  }

  /** The {@code sharedDownloads} readiness details. */
  public Map<String, Object> details() {
    return coordination.details();
  }

  /** Releases the shared lease or the standalone barrier. */
  @Override
  public void close() {
    coordination.close();
  }
}
