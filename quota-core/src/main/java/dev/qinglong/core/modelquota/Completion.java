package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Sha256Digest;
import java.util.Objects;

/**
 * The completion receipt ({@value #TYPE}): what the runtime reported about one invocation. {@code
 * usage} and {@code costMicros} are {@code null} when unknown.
 */
public record Completion(
    String projectId,
    String invocationId,
    String stepRunId,
    InvocationOutcome outcome,
    TokenUsage usage,
    Long costMicros,
    long completedAtMs,
    Sha256Digest digest)
    implements Receipt {
  public static final String TYPE = "qinglong/model-invocation-completion@v1";

  public Completion {
    Receipts.require(projectId, invocationId, digest);
    Identifiers.require("stepRunId", stepRunId);
    Objects.requireNonNull(outcome, "outcome");
    Limits.requireNullable("costMicros", costMicros, 0, Limits.MAX_AMOUNT);
  }

  @Override
  public String type() {
    return TYPE;
  }

  /** True if this receipt records exactly the reported outcome, usage and cost. */
  public boolean reports(InvocationOutcome outcome, TokenUsage usage, Long costMicros) {
    return this.outcome == outcome
        && Objects.equals(this.usage, usage)
        && Objects.equals(this.costMicros, costMicros);
  }

  @Override
  public String canonicalJson() {
    return Receipts.json(TYPE, projectId, invocationId)
        .put("stepRunId", stepRunId)
        .put("outcome", outcome.wireName())
        .put("usage", TokenUsage.canonical(usage))
        .put("costMicros", costMicros)
        .put("completedAtMs", completedAtMs)
        .encode();
  }
}
