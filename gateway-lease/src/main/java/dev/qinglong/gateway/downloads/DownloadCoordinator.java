package dev.qinglong.gateway.downloads;

import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.lease.LeaseListener;
import dev.qinglong.gateway.lease.SharedDownloadPolicy;

/**
 * The store's side of the download mode: what a process that serves downloads asks its store for,
 * with the settings the application read itself. The caller closes what it gets.
 */
public interface DownloadCoordinator {

  /**
   * Standalone downloads with the whole budget (on PostgreSQL, behind the mode barrier).
   *
   * @throws IllegalStateException with an operator-readable message when this process may not start
   *     its download side (the database is set up for shared downloads)
   */
  DownloadCoordination standalone(DownloadRates rates);

  /**
   * Shared downloads: takes {@code slot}'s lease under {@code policy}.
   *
   * @throws IllegalStateException with an operator-readable message when the store has no leases,
   *     the slot is busy, the stored policy differs or the database is set up for the other mode
   */
  DownloadCoordination shared(SharedDownloadPolicy policy, int slot, LeaseListener listener);
}
