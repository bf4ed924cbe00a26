package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.QingLongException;

/**
 * Admission found no invocation policy for the StepRun's model in the Project: without one there is
 * no worst case to reserve, so nothing is admitted and nothing was reserved. A {@code
 * project.admin} fixes it by setting the model's policy. (A Project quota is optional: without one
 * admission reserves against no limit.)
 */
public final class ModelPolicyMissingException extends QingLongException {
  public ModelPolicyMissingException(String message) {
    super(message);
  }
}
