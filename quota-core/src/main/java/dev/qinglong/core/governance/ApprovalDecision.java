package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Identifiers;
import java.util.Objects;

/**
 * One approver's verdict on an approval, recorded once: an approver decides an approval at most
 * once, under a {@code decisionId} of their own that names nothing else in the Project.
 */
public record ApprovalDecision(
    String decisionId, Decision decision, String decidedBy, long decidedAtMs) {
  public ApprovalDecision {
    Identifiers.require("decisionId", decisionId);
    Objects.requireNonNull(decision, "decision");
    Identifiers.require("decidedBy", decidedBy);
  }
}
