package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Sha256Digest;
import java.util.Objects;

/**
 * The reservation receipt ({@value #TYPE}): the worst case of one invocation, held against one
 * Project window until settled (docs/design.md#reservation-and-settlement). Immutable and
 * append-only.
 *
 * <p>Besides its own amounts it carries the window's running totals <em>after</em> it ({@code
 * windowSeq}, {@code windowInvocations}, {@code windowReservedTokens}, {@code
 * windowReservedCostMicros}), written under the window's lock, so the next admission reads the
 * window's usage from the latest receipt alone instead of summing the window. They are inside the
 * digest, so a tampered total is detected like any other drift. Built by {@link Receipt#sealed}.
 *
 * @param quotaPolicyRevision 0 when the Project had no quota policy
 * @param reservedCostMicros {@code null} when no cost is reserved: the Project has no cost limit
 *     (then a model cost cap is not reserved either: only a Project cost limit needs cost fenced)
 */
public record Reservation(
    String projectId,
    String invocationId,
    String stepRunId,
    String runId,
    String modelId,
    long modelPolicyRevision,
    long quotaPolicyRevision,
    long windowStartMs,
    long windowMs,
    WindowBudget budget,
    long reservedTokens,
    Long reservedCostMicros,
    long windowSeq,
    long windowInvocations,
    long windowReservedTokens,
    long windowReservedCostMicros,
    long reservedAtMs,
    Sha256Digest digest)
    implements Receipt, InWindow {
  public static final String TYPE = "qinglong/model-invocation-quota-reservation@v1";

  public Reservation {
    Receipts.require(projectId, invocationId, stepRunId, runId, modelId, digest);
    Objects.requireNonNull(budget, "budget");
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public String canonicalJson() {
    return Receipts.json(TYPE, projectId, invocationId, stepRunId, runId, modelId)
        .put("modelPolicyRevision", modelPolicyRevision)
        .put("quotaPolicyRevision", quotaPolicyRevision)
        .put("windowStartMs", windowStartMs)
        .put("windowMs", windowMs)
        .put("windowBudget", budget.canonical())
        .put("reservedTokens", reservedTokens)
        .put("reservedCostMicros", reservedCostMicros)
        .put(
            "windowTotals",
            CanonicalJson.object()
                .put("seq", windowSeq)
                .put("invocations", windowInvocations)
                .put("reservedTokens", windowReservedTokens)
                .put("reservedCostMicros", windowReservedCostMicros))
        .put("reservedAtMs", reservedAtMs)
        .encode();
  }
}
