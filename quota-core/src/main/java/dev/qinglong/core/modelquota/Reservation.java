package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Sha256Digest;
import java.util.Objects;

/**
 * The reservation receipt ({@value #TYPE}): the worst case of one invocation, held against one
 * Project window until settled (ADR 001 §2). Immutable and append-only.
 *
 * <p>Besides its own amounts it carries the window's running totals <em>after</em> it ({@code
 * windowSeq}, {@code windowInvocations}, {@code windowReservedTokens}, {@code
 * windowReservedCostMicros}), written under the window's lock, so the next admission reads the
 * window's usage from the latest receipt alone instead of summing the window. They are inside the
 * digest, so a tampered total is detected like any other drift.
 *
 * @param quotaPolicyRevision 0 when the Project had no quota policy
 * @param reservedCostMicros {@code null} when no cost is reserved: the Project has no cost limit
 *     (then a model cost cap is not reserved either, ADR 001 §2)
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
    Sha256Digest digest) {
  public static final String TYPE = "qinglong/model-invocation-quota-reservation@v1";

  public Reservation {
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
    Identifiers.require("stepRunId", stepRunId);
    Identifiers.require("runId", runId);
    Identifiers.require("modelId", modelId);
    Objects.requireNonNull(budget, "budget");
    Objects.requireNonNull(digest, "digest");
  }

  /** Builds the receipt and computes its digest. */
  public static Reservation create(
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
      long reservedAtMs) {
    Reservation draft =
        new Reservation(
            projectId,
            invocationId,
            stepRunId,
            runId,
            modelId,
            modelPolicyRevision,
            quotaPolicyRevision,
            windowStartMs,
            windowMs,
            budget,
            reservedTokens,
            reservedCostMicros,
            windowSeq,
            windowInvocations,
            windowReservedTokens,
            windowReservedCostMicros,
            reservedAtMs,
            Receipts.PLACEHOLDER);
    return draft.withDigest(Sha256Digest.ofUtf8(draft.canonicalJson()));
  }

  private Reservation withDigest(Sha256Digest d) {
    return new Reservation(
        projectId,
        invocationId,
        stepRunId,
        runId,
        modelId,
        modelPolicyRevision,
        quotaPolicyRevision,
        windowStartMs,
        windowMs,
        budget,
        reservedTokens,
        reservedCostMicros,
        windowSeq,
        windowInvocations,
        windowReservedTokens,
        windowReservedCostMicros,
        reservedAtMs,
        d);
  }

  public String type() {
    return TYPE;
  }

  public WindowRef window() {
    return new WindowRef(projectId, windowStartMs, windowMs);
  }

  /** The canonical encoding of every member but the digest. */
  public String canonicalJson() {
    return CanonicalJson.object()
        .put("type", TYPE)
        .put("projectId", projectId)
        .put("invocationId", invocationId)
        .put("stepRunId", stepRunId)
        .put("runId", runId)
        .put("modelId", modelId)
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

  /** True if the stored digest is the digest of the stored members (no drift). */
  public boolean digestMatches() {
    return digest.equals(Sha256Digest.ofUtf8(canonicalJson()));
  }
}
