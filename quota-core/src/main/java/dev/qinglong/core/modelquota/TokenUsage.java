package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ValidationException;

/**
 * Token usage a provider reported. {@code totalTokens} is what quota settles on; it may exceed
 * input + output (providers count extra tokens) but never fall below it.
 */
public record TokenUsage(long inputTokens, long outputTokens, long totalTokens) {
  public TokenUsage {
    Limits.require("usage.inputTokens", inputTokens, 0, Limits.MAX_AMOUNT);
    Limits.require("usage.outputTokens", outputTokens, 0, Limits.MAX_AMOUNT);
    Limits.require("usage.totalTokens", totalTokens, 0, Limits.MAX_AMOUNT);
    if (totalTokens < inputTokens + outputTokens) {
      throw new ValidationException("usage.totalTokens", "must be at least input + output tokens");
    }
  }

  CanonicalJson.Obj canonical() {
    return CanonicalJson.object()
        .put("inputTokens", inputTokens)
        .put("outputTokens", outputTokens)
        .put("totalTokens", totalTokens);
  }

  static CanonicalJson.Obj canonical(TokenUsage usage) {
    return usage == null ? null : usage.canonical();
  }
}
