package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Sha256Digest;
import java.util.Objects;

/** Shared pieces of the receipt records. */
final class Receipts {
  /** Stands in for the digest while a receipt is being built; never stored. */
  static final Sha256Digest PLACEHOLDER = new Sha256Digest("sha256:" + "0".repeat(64));

  private Receipts() {}

  /** Checks what every receipt of one invocation has: its Project's and its own id, a digest. */
  static void require(String projectId, String invocationId, Sha256Digest digest) {
    requireIds(projectId, invocationId);
    Objects.requireNonNull(digest, "digest");
  }

  /** Checks the same of a receipt that also names its StepRun, run and model. */
  static void require(
      String projectId,
      String invocationId,
      String stepRunId,
      String runId,
      String modelId,
      Sha256Digest digest) {
    requireIds(projectId, invocationId);
    Identifiers.require("stepRunId", stepRunId);
    Identifiers.require("runId", runId);
    Identifiers.require("modelId", modelId);
    Objects.requireNonNull(digest, "digest");
  }

  private static void requireIds(String projectId, String invocationId) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
  }

  /** The canonical encoding's members of a receipt that names its StepRun, run and model. */
  static CanonicalJson.Obj json(
      String type,
      String projectId,
      String invocationId,
      String stepRunId,
      String runId,
      String modelId) {
    return json(type, projectId, invocationId)
        .put("stepRunId", stepRunId)
        .put("runId", runId)
        .put("modelId", modelId);
  }

  /** The canonical encoding's members every receipt starts with. */
  static CanonicalJson.Obj json(String type, String projectId, String invocationId) {
    return CanonicalJson.object()
        .put("type", type)
        .put("projectId", projectId)
        .put("invocationId", invocationId);
  }
}
