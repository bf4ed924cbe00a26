package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;

/**
 * One immutable revision of the per-invocation limits of a model in a Project
 * (docs/design.md#windows). Admission reserves exactly these worst-case amounts, never a caller's
 * estimate.
 *
 * @param revision 1 for the first policy of (Project, model), +1 for each change
 * @param maxTotalTokens tokens reserved per invocation
 * @param maxCostMicros cost reserved per invocation in micro-units, or {@code null} if the policy
 *     has no cost cap (cost is then unknown and never treated as zero: see {@link
 *     ModelQuotaRules#configurationError})
 */
public record ModelInvocationPolicy(
    String projectId,
    String modelId,
    long revision,
    long maxTotalTokens,
    Long maxCostMicros,
    long createdAtMs) {
  public ModelInvocationPolicy {
    Identifiers.require("projectId", projectId);
    Identifiers.require("modelId", modelId);
    if (revision < 1) {
      throw new IllegalArgumentException("revision must be >= 1. Indicates a bug.");
    }
    Limits.require("maxTotalTokens", maxTotalTokens, 1, Limits.MAX_INVOCATION_TOKENS);
    Limits.requireNullable("maxCostMicros", maxCostMicros, 0, Limits.MAX_AMOUNT);
  }

  /** True if {@code other} sets the same limits (revision and time aside). */
  public boolean sameLimits(long maxTotalTokens, Long maxCostMicros) {
    return this.maxTotalTokens == maxTotalTokens
        && java.util.Objects.equals(this.maxCostMicros, maxCostMicros);
  }
}
