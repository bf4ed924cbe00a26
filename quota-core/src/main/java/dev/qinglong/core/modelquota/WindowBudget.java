package dev.qinglong.core.modelquota;

/**
 * The limits of the window a reservation was admitted into, as bound by the reservation receipt.
 * All {@code null} when the Project had no quota policy (nothing was fenced).
 */
public record WindowBudget(Long maxInvocations, Long maxTokens, Long maxCostMicros) {
  public static final WindowBudget UNFENCED = new WindowBudget(null, null, null);

  static WindowBudget of(ProjectQuotaPolicy quota) {
    return quota == null
        ? UNFENCED
        : new WindowBudget(quota.maxInvocations(), quota.maxTokens(), quota.maxCostMicros());
  }

  CanonicalJson.Obj canonical() {
    return CanonicalJson.object()
        .put("maxCostMicros", maxCostMicros)
        .put("maxInvocations", maxInvocations)
        .put("maxTokens", maxTokens);
  }
}
