package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Sha256Digest;
import java.util.Objects;

/**
 * The admission receipt ({@value #TYPE}), a.k.a. ModelInvocationStart: the StepRun went {@code
 * ready → running} for this invocation under the bound reservation. Written in the same transaction
 * as the reservation.
 */
public record InvocationStart(
    String projectId,
    String invocationId,
    String stepRunId,
    String runId,
    String modelId,
    Sha256Digest reservationDigest,
    long startedAtMs,
    Sha256Digest digest) {
  public static final String TYPE = "qinglong/model-invocation-quota-admission@v1";

  public InvocationStart {
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
    Identifiers.require("stepRunId", stepRunId);
    Identifiers.require("runId", runId);
    Identifiers.require("modelId", modelId);
    Objects.requireNonNull(reservationDigest, "reservationDigest");
    Objects.requireNonNull(digest, "digest");
  }

  public static InvocationStart create(Reservation r, long startedAtMs) {
    InvocationStart draft =
        new InvocationStart(
            r.projectId(),
            r.invocationId(),
            r.stepRunId(),
            r.runId(),
            r.modelId(),
            r.digest(),
            startedAtMs,
            Receipts.PLACEHOLDER);
    return new InvocationStart(
        draft.projectId,
        draft.invocationId,
        draft.stepRunId,
        draft.runId,
        draft.modelId,
        draft.reservationDigest,
        draft.startedAtMs,
        Sha256Digest.ofUtf8(draft.canonicalJson()));
  }

  public String type() {
    return TYPE;
  }

  public String canonicalJson() {
    return CanonicalJson.object()
        .put("type", TYPE)
        .put("projectId", projectId)
        .put("invocationId", invocationId)
        .put("stepRunId", stepRunId)
        .put("runId", runId)
        .put("modelId", modelId)
        .put("reservationDigest", reservationDigest.value())
        .put("startedAtMs", startedAtMs)
        .encode();
  }

  public boolean digestMatches() {
    return digest.equals(Sha256Digest.ofUtf8(canonicalJson()));
  }
}
