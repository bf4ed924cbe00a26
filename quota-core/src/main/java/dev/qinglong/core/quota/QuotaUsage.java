package dev.qinglong.core.quota;

import java.util.List;

/**
 * The caller's management quota in one Project, per operation (in {@link QuotaOperation} order).
 * When the quota is disabled nothing is read: {@code enabled=false}, no operations and no clock.
 */
public record QuotaUsage(
    boolean enabled, long windowMs, Long databaseNowMs, List<OperationUsage> operations) {
  public QuotaUsage {
    operations = List.copyOf(operations);
  }
}
