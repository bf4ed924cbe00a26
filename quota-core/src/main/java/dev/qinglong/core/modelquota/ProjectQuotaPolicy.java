package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;
import java.util.Objects;

/**
 * One immutable revision of a Project's model quota (docs/design.md#windows): a fixed,
 * epoch-aligned window and the most the window may hold across all of the Project's invocations.
 *
 * @param maxCostMicros the window's cost limit, or {@code null} for none; when set, every model
 *     policy of the Project must cap cost or admission fails closed
 */
public record ProjectQuotaPolicy(
    String projectId,
    long revision,
    QuotaWindow window,
    long maxInvocations,
    long maxTokens,
    Long maxCostMicros,
    long createdAtMs) {
  public ProjectQuotaPolicy {
    Identifiers.require("projectId", projectId);
    if (revision < 1) {
      throw new IllegalArgumentException("revision must be >= 1. Indicates a bug.");
    }
    Objects.requireNonNull(window, "window");
    Limits.require("maxInvocations", maxInvocations, 1, Limits.MAX_INVOCATIONS);
    Limits.require("maxTokens", maxTokens, 1, Limits.MAX_AMOUNT);
    Limits.requireNullable("maxCostMicros", maxCostMicros, 0, Limits.MAX_AMOUNT);
  }

  /** True if the limits equal these (revision and time aside). */
  public boolean sameLimits(
      QuotaWindow window, long maxInvocations, long maxTokens, Long maxCostMicros) {
    return this.window == window
        && this.maxInvocations == maxInvocations
        && this.maxTokens == maxTokens
        && Objects.equals(this.maxCostMicros, maxCostMicros);
  }
}
