package dev.qinglong.core.quota;

import java.util.Map;

/**
 * A subject's management quota buckets in one Project, as stored, with the database clock read in
 * the same statement. Windows are not interpreted: an ended window is still listed as stored.
 */
public record BucketsSnapshot(long databaseNowMs, Map<QuotaOperation, Bucket> buckets) {
  public BucketsSnapshot {
    buckets = Map.copyOf(buckets);
  }

  /** One stored bucket: its window start (database clock) and its count (1..1000). */
  public record Bucket(long windowStartedAtMs, int consumedCount) {}
}
