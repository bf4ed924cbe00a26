package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.ValidationException;
import java.util.EnumMap;
import java.util.Map;

/**
 * Limits and shadow limits per operation, as a Project policy or a user override sets them. An
 * operation it leaves out falls through: a user override to the Project's policy, the Project's
 * policy to the default. Both maps empty is a user override's removal.
 *
 * @param limits enforced limits, each 1..{@value ManagementQuotaPolicy#MAX_LIMIT}
 * @param shadowLimits shadow limits (evaluated and reported, never enforced), each in the same
 *     range
 */
public record QuotaLimits(
    Map<QuotaOperation, Integer> limits, Map<QuotaOperation, Integer> shadowLimits) {
  /** No limit and no shadow limit. */
  public static final QuotaLimits NONE = new QuotaLimits(Map.of(), Map.of());

  public QuotaLimits {
    limits = checked("limits", limits);
    shadowLimits = checked("shadowLimits", shadowLimits);
  }

  /** True when it sets nothing. */
  public boolean isEmpty() {
    return limits.isEmpty() && shadowLimits.isEmpty();
  }

  /** The limit it sets for {@code operation}, or null. */
  public Integer limit(QuotaOperation operation) {
    return limits.get(operation);
  }

  /** The shadow limit it sets for {@code operation}, or null. */
  public Integer shadowLimit(QuotaOperation operation) {
    return shadowLimits.get(operation);
  }

  static boolean inRange(long value) {
    return value >= 1 && value <= ManagementQuotaPolicy.MAX_LIMIT;
  }

  private static Map<QuotaOperation, Integer> checked(
      String member, Map<QuotaOperation, Integer> values) {
    EnumMap<QuotaOperation, Integer> copy = new EnumMap<>(QuotaOperation.class);
    if (values != null) {
      for (Map.Entry<QuotaOperation, Integer> e : values.entrySet()) {
        if (e.getKey() == null || e.getValue() == null || !inRange(e.getValue())) {
          throw new ValidationException(
              member + (e.getKey() == null ? "" : "." + e.getKey().wireName()),
              "must be between 1 and " + ManagementQuotaPolicy.MAX_LIMIT);
        }
        copy.put(e.getKey(), e.getValue());
      }
    }
    return Map.copyOf(copy);
  }
}
