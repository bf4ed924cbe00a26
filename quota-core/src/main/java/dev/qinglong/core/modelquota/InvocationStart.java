package dev.qinglong.core.modelquota;

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
    Sha256Digest digest)
    implements Receipt {
  public static final String TYPE = "qinglong/model-invocation-quota-admission@v1";

  public InvocationStart {
    Receipts.require(projectId, invocationId, stepRunId, runId, modelId, digest);
    Objects.requireNonNull(reservationDigest, "reservationDigest");
  }

  public static InvocationStart create(Reservation r, long startedAtMs) {
    return Receipt.sealed(
        digest ->
            new InvocationStart(
                r.projectId(),
                r.invocationId(),
                r.stepRunId(),
                r.runId(),
                r.modelId(),
                r.digest(),
                startedAtMs,
                digest));
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public String canonicalJson() {
    return Receipts.json(TYPE, projectId, invocationId, stepRunId, runId, modelId)
        .put("reservationDigest", reservationDigest.value())
        .put("startedAtMs", startedAtMs)
        .encode();
  }
}
