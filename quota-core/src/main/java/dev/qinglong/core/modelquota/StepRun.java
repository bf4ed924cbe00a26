package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;
import java.util.Objects;

/**
 * A step of a run that may invoke one model once. {@code invocationId} is bound exactly when the
 * step left {@code ready}.
 */
public record StepRun(
    String projectId,
    String stepRunId,
    String runId,
    String modelId,
    StepRunState state,
    String invocationId,
    long createdAtMs,
    long updatedAtMs) {
  public StepRun {
    Identifiers.require("projectId", projectId);
    Identifiers.require("stepRunId", stepRunId);
    Identifiers.require("runId", runId);
    Identifiers.require("modelId", modelId);
    Objects.requireNonNull(state, "state");
    if ((state == StepRunState.READY) != (invocationId == null)) {
      throw new IllegalStateException("a step run has an invocation exactly when it left ready");
    }
    if (invocationId != null) {
      Identifiers.require("invocationId", invocationId);
    }
  }
}
