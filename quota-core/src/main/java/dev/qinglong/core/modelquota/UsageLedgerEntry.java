package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Sha256Digest;
import java.util.Objects;

/**
 * One immutable UsageLedger entry ({@value #TYPE}): what an invocation actually used, including the
 * real cost even when quota did not reserve cost. {@code ledgerSeq} orders a Project's ledger.
 */
public record UsageLedgerEntry(
    String projectId,
    long ledgerSeq,
    String invocationId,
    String stepRunId,
    String runId,
    String modelId,
    InvocationOutcome outcome,
    TokenUsage usage,
    Long costMicros,
    Sha256Digest completionDigest,
    long recordedAtMs,
    Sha256Digest digest) {
  public static final String TYPE = "qinglong/model-usage-ledger-entry@v1";

  public UsageLedgerEntry {
    Identifiers.require("projectId", projectId);
    if (ledgerSeq < 1) {
      throw new IllegalStateException("ledger sequence starts at 1");
    }
    Identifiers.require("invocationId", invocationId);
    Identifiers.require("stepRunId", stepRunId);
    Identifiers.require("runId", runId);
    Identifiers.require("modelId", modelId);
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(completionDigest, "completionDigest");
    Objects.requireNonNull(digest, "digest");
  }

  public static UsageLedgerEntry create(
      long ledgerSeq, Reservation r, Completion c, long recordedAtMs) {
    UsageLedgerEntry draft =
        new UsageLedgerEntry(
            r.projectId(),
            ledgerSeq,
            r.invocationId(),
            r.stepRunId(),
            r.runId(),
            r.modelId(),
            c.outcome(),
            c.usage(),
            c.costMicros(),
            c.digest(),
            recordedAtMs,
            Receipts.PLACEHOLDER);
    return new UsageLedgerEntry(
        draft.projectId,
        draft.ledgerSeq,
        draft.invocationId,
        draft.stepRunId,
        draft.runId,
        draft.modelId,
        draft.outcome,
        draft.usage,
        draft.costMicros,
        draft.completionDigest,
        draft.recordedAtMs,
        Sha256Digest.ofUtf8(draft.canonicalJson()));
  }

  public String type() {
    return TYPE;
  }

  public String canonicalJson() {
    return CanonicalJson.object()
        .put("type", TYPE)
        .put("projectId", projectId)
        .put("ledgerSeq", ledgerSeq)
        .put("invocationId", invocationId)
        .put("stepRunId", stepRunId)
        .put("runId", runId)
        .put("modelId", modelId)
        .put("outcome", outcome.wireName())
        .put("usage", TokenUsage.canonical(usage))
        .put("costMicros", costMicros)
        .put("completionDigest", completionDigest.value())
        .put("recordedAtMs", recordedAtMs)
        .encode();
  }

  public boolean digestMatches() {
    return digest.equals(Sha256Digest.ofUtf8(canonicalJson()));
  }
}
