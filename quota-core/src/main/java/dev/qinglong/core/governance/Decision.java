package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.kernel.WireNamed;

/** An approver's verdict; wire names {@code approve} and {@code reject}. */
public enum Decision implements WireNamed {
  APPROVE,
  REJECT;

  /** The approval's (and proposal's) state once this decision is recorded. */
  public ProposalState resultingState() {
    return this == APPROVE ? ProposalState.APPROVED : ProposalState.REJECTED;
  }

  /**
   * @throws ValidationException if {@code name} is not approve or reject
   */
  public static Decision fromWire(String name) {
    return WireNamed.requested(Decision.class, name, "decision", "must be approve or reject");
  }
}
