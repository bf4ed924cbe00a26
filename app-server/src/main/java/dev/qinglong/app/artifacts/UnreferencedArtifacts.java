package dev.qinglong.app.artifacts;

import dev.qinglong.core.governance.GovernanceStore;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clean-up of unreferenced artifacts, so that uploads cannot fill the disk: an uploaded
 * artifact that no proposal names, in any Project and any state, is deleted once its last upload is
 * older than {@code qinglong.artifacts.unreferenced-grace}. Run by the active publication worker
 * (one per database) every {@code qinglong.artifacts.cleanup-interval}, through the worker's own
 * store (PostgreSQL: {@code ql3_package_executor}, which reads proposals); see {@link
 * FileArtifactStore#deleteUnreferenced} for why this is safe while uploads go on.
 */
public final class UnreferencedArtifacts {
  private static final Logger log = LoggerFactory.getLogger(UnreferencedArtifacts.class);

  private final GovernanceStore store;
  private final FileArtifactStore artifacts;
  private final Duration grace;
  private final Duration interval;
  private final Clock clock;
  private Instant next;

  UnreferencedArtifacts(
      GovernanceStore store,
      FileArtifactStore artifacts,
      Duration grace,
      Duration interval,
      Clock clock) {
    // Built once, by WorkerConfiguration from its beans: none is null.
    this.store = store;
    this.artifacts = artifacts;
    this.grace = grace;
    this.interval = interval;
    this.clock = clock;
    // The first sweep one interval after start, not at once: a restart loop sweeps nothing extra.
    this.next = clock.instant().plus(interval);
  }

  /**
   * Deletes now every artifact unreferenced and last uploaded more than the grace period ago.
   *
   * @return how many were deleted
   * @throws IOException if the storage cannot be listed or a file not deleted
   * @throws dev.qinglong.core.kernel.StoreUnavailableException if the store cannot answer; nothing
   *     more is deleted
   */
  public int sweep() throws IOException {
    int deleted =
        artifacts.deleteUnreferenced(clock.instant().minus(grace), store::isArtifactReferenced);
    log.info("artifacts.unreferenced-deleted count={} grace={}", deleted, grace);
    return deleted;
  }

  /** After a worker pass: sweeps if the interval has passed (never when it is 0). Never throws. */
  synchronized void afterPass() {
    if (interval.isZero() || clock.instant().isBefore(next)) {
      return;
    }
    next = clock.instant().plus(interval);
    try {
      sweep();
    } catch (IOException | RuntimeException e) {
      log.warn("artifacts.cleanup-failed reason={}; retried next interval", e.toString());
    }
  }
}
