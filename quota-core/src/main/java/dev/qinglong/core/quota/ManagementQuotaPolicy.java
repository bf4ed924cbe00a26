package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.ValidationException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Window and per-operation limits of the management quota. The bounds keep a bucket one small row
 * (docs/design.md#fixed-windows-on-the-database-clock): a window of at most 5 minutes and at most
 * 1000 receipts per bucket.
 */
public record ManagementQuotaPolicy(
    boolean enabled, Duration window, Map<QuotaOperation, Integer> limits) {
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);
  public static final Duration MAX_WINDOW = Duration.ofMinutes(5);
  public static final int MAX_LIMIT = 1000;

  public ManagementQuotaPolicy {
    if (window == null || window.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new ValidationException("window", "must be at least 1s");
    }
    if (window.compareTo(MAX_WINDOW) > 0) {
      throw new ValidationException("window", "must be at most 5m (a hard bound)");
    }
    if (window.getNano() % 1_000_000 != 0) {
      throw new ValidationException("window", "must be a whole number of milliseconds");
    }
    EnumMap<QuotaOperation, Integer> copy = new EnumMap<>(QuotaOperation.class);
    for (QuotaOperation op : QuotaOperation.values()) {
      Integer limit = limits == null ? null : limits.get(op);
      int value = limit == null ? op.defaultLimit() : limit;
      if (value < 1 || value > MAX_LIMIT) {
        throw new ValidationException(
            "limits." + op.wireName(), "must be between 1 and " + MAX_LIMIT);
      }
      copy.put(op, value);
    }
    limits = Map.copyOf(copy);
  }

  /** Enabled, 60 s window, limits 30 / 60 / 600. */
  public static ManagementQuotaPolicy defaults() {
    return new ManagementQuotaPolicy(true, DEFAULT_WINDOW, Map.of());
  }

  public int limit(QuotaOperation operation) {
    return limits.get(operation);
  }
}
