package dev.qinglong.gateway.governor;

import io.github.bucket4j.BlockingStrategy;
import io.github.bucket4j.TimeMeter;

/**
 * Where a {@link DownloadGovernor} takes its time from (bucket refill, wait bounds, idle eviction)
 * and how it spends a wait. Production uses {@link #SYSTEM}; unit tests pass a controllable clock
 * whose waits advance it, so rate checks assert exact amounts instead of elapsed wall-clock time.
 */
interface GovernorTime extends TimeMeter, BlockingStrategy {
  /** {@code System.nanoTime()} and Bucket4j's own parking (interruptible). */
  GovernorTime SYSTEM =
      new GovernorTime() {
        @Override
        public long currentTimeNanos() {
          return System.nanoTime();
        }

        @Override
        public boolean isWallClockBased() {
          return false;
        }

        @Override
        public void park(long nanosToPark) throws InterruptedException {
          BlockingStrategy.PARKING.park(nanosToPark);
        }
      };
}
