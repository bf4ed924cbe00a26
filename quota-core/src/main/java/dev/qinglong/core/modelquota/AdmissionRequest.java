package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Identifiers;

/** A validated request to admit one invocation of a ready StepRun. */
public record AdmissionRequest(String projectId, String invocationId, String stepRunId) {
  public AdmissionRequest {
    Identifiers.require("projectId", projectId);
    Identifiers.require("invocationId", invocationId);
    Identifiers.require("stepRunId", stepRunId);
  }
}
