package dev.qinglong.core.quota;

import java.util.Map;

/**
 * A subject's management quota buckets in one Project, as stored, with the limits set for it (the
 * Project's policy and the user's override, per operation) and the database clock, all read in the
 * same statement. Windows are not interpreted: an ended window is still listed as stored.
 */
public record BucketsSnapshot(
    long databaseNowMs,
    Map<QuotaOperation, Bucket> buckets,
    Map<QuotaOperation, Overrides> limits) {
  public BucketsSnapshot {
    buckets = Map.copyOf(buckets);
    limits = Map.copyOf(limits);
  }

  /** With no limits set for the subject. */
  public BucketsSnapshot(long databaseNowMs, Map<QuotaOperation, Bucket> buckets) {
    this(databaseNowMs, buckets, Map.of());
  }

  /** One stored bucket: its window start (database clock) and its count (1..1000). */
  public record Bucket(long windowStartedAtMs, int consumedCount) {}

  /** What the Project's policy and the user's override set for one operation (null: nothing). */
  public record Overrides(
      Integer projectLimit, Integer userLimit, Integer projectShadow, Integer userShadow) {}

  /** The limit in force for {@code operation} with {@code defaultLimit} as the default. */
  public EffectiveLimit effective(QuotaOperation operation, int defaultLimit) {
    Overrides set = limits.get(operation);
    return set == null
        ? EffectiveLimit.defaultLimit(defaultLimit)
        : EffectiveLimit.resolve(
            defaultLimit,
            set.projectLimit(),
            set.userLimit(),
            set.projectShadow(),
            set.userShadow());
  }
}
