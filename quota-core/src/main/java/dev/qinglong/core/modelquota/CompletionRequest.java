package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;
import java.util.Objects;

/**
 * A validated completion report. {@code usage} and {@code costMicros} are {@code null} when
 * unknown.
 */
public record CompletionRequest(
    String projectId,
    String invocationId,
    InvocationOutcome outcome,
    TokenUsage usage,
    Long costMicros) {
  public CompletionRequest {
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
    Objects.requireNonNull(outcome, "outcome");
    Limits.requireNullable("costMicros", costMicros, 0, Limits.MAX_AMOUNT);
  }
}
