package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.util.Objects;

/**
 * The limit one decision was made under, as the deciding statement resolved it: the user's
 * override, else the Project's policy, else the default, each field on its own ({@link #resolve}).
 *
 * @param limit the enforced limit, 1..{@value ManagementQuotaPolicy#MAX_LIMIT}
 * @param source where {@code limit} came from
 * @param shadowLimit the shadow limit in force (evaluated, never enforced), or null for none
 */
public record EffectiveLimit(int limit, LimitSource source, Integer shadowLimit) {
  public EffectiveLimit {
    Objects.requireNonNull(source, "source");
    if (!QuotaLimits.inRange(limit) || (shadowLimit != null && !QuotaLimits.inRange(shadowLimit))) {
      throw new StoreUnavailableException("corrupt quota limit: out of range");
    }
  }

  /** The default limit, no shadow limit: what a Project and user without a policy get. */
  public static EffectiveLimit defaultLimit(int limit) {
    return new EffectiveLimit(limit, LimitSource.DEFAULT, null);
  }

  /**
   * The precedence the deciding statements apply in SQL, written once more for the reads: the
   * user's value, else the Project's, else the default; the shadow limit the same way, on its own.
   */
  public static EffectiveLimit resolve(
      int defaultLimit,
      Integer projectLimit,
      Integer userLimit,
      Integer projectShadow,
      Integer userShadow) {
    if (userLimit != null) {
      return new EffectiveLimit(userLimit, LimitSource.USER, first(userShadow, projectShadow));
    }
    if (projectLimit != null) {
      return new EffectiveLimit(
          projectLimit, LimitSource.PROJECT, first(userShadow, projectShadow));
    }
    return new EffectiveLimit(defaultLimit, LimitSource.DEFAULT, first(userShadow, projectShadow));
  }

  /**
   * Whether a shadow limit would have refused the decision that left the bucket at {@code
   * consumedCount}: the count before it was at or above the shadow limit. Only a counted decision
   * (one that added a receipt) is asked.
   */
  public boolean shadowRefuses(int consumedCount) {
    return shadowLimit != null && consumedCount > shadowLimit;
  }

  private static Integer first(Integer a, Integer b) {
    return a != null ? a : b;
  }
}
