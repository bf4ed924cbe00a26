package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.ValidationException;

/**
 * How many distinct approvers a Project's plugin-package proposals need: an immutable revision, set
 * by {@code setBy} at {@code setAtMs} (database clock). A proposal binds the value in force when it
 * is proposed; a Project without a revision needs {@value #DEFAULT_REQUIRED_APPROVALS}.
 *
 * @param revision 1 for the first revision of the Project, then one more per change; 0 for the
 *     default of a Project that never set one
 */
public record ApprovalPolicy(
    String projectId, long revision, int requiredApprovals, String setBy, Long setAtMs) {
  /** The fewest approvals a policy may require. */
  public static final int MIN_REQUIRED_APPROVALS = 1;

  /** The most approvals a policy may require. */
  public static final int MAX_REQUIRED_APPROVALS = 5;

  /** What a Project that never set a policy requires: the four-eyes rule, one other approver. */
  public static final int DEFAULT_REQUIRED_APPROVALS = 1;

  public ApprovalPolicy {
    Identifiers.require("projectId", projectId);
    requireRequiredApprovals(requiredApprovals);
  }

  /** The policy of a Project that never set one. */
  public static ApprovalPolicy defaultFor(String projectId) {
    return new ApprovalPolicy(projectId, 0, DEFAULT_REQUIRED_APPROVALS, null, null);
  }

  /**
   * @throws ValidationException if {@code n} is outside {@value #MIN_REQUIRED_APPROVALS}..{@value
   *     #MAX_REQUIRED_APPROVALS}
   */
  public static int requireRequiredApprovals(long n) {
    if (n < MIN_REQUIRED_APPROVALS || n > MAX_REQUIRED_APPROVALS) {
      throw new ValidationException(
          "requiredApprovals", "must be " + MIN_REQUIRED_APPROVALS + ".." + MAX_REQUIRED_APPROVALS);
    }
    return (int) n;
  }
}
