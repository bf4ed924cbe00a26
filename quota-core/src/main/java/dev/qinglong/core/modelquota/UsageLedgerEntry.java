package dev.qinglong.core.modelquota;

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
    Sha256Digest digest)
    implements Receipt {
  public static final String TYPE = "qinglong/model-usage-ledger-entry@v1";

  public UsageLedgerEntry {
    Receipts.require(projectId, invocationId, stepRunId, runId, modelId, digest);
    if (ledgerSeq < 1) {
      throw new IllegalStateException("ledger sequence starts at 1");
    }
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(completionDigest, "completionDigest");
  }

  public static UsageLedgerEntry create(
      long ledgerSeq, Reservation r, Completion c, long recordedAtMs) {
    return Receipt.sealed(
        digest ->
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
                digest));
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public String canonicalJson() {
    return Receipts.json(TYPE, projectId, invocationId, stepRunId, runId, modelId)
        .put("ledgerSeq", ledgerSeq)
        .put("outcome", outcome.wireName())
        .put("usage", TokenUsage.canonical(usage))
        .put("costMicros", costMicros)
        .put("completionDigest", completionDigest.value())
        .put("recordedAtMs", recordedAtMs)
        .encode();
  }
}
