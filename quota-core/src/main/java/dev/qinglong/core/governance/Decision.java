package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.ValidationException;

/** An approver's verdict. */
public enum Decision {
  APPROVE("approve", ProposalState.APPROVED),
  REJECT("reject", ProposalState.REJECTED);

  private final String wireName;
  private final ProposalState resultingState;

  Decision(String wireName, ProposalState resultingState) {
    this.wireName = wireName;
    this.resultingState = resultingState;
  }

  public String wireName() {
    return wireName;
  }

  /** The approval's (and proposal's) state once this decision is recorded. */
  public ProposalState resultingState() {
    return resultingState;
  }

  /**
   * @throws ValidationException if {@code name} is not approve or reject
   */
  public static Decision fromWire(String name) {
    for (Decision d : values()) {
      if (d.wireName.equals(name)) {
        return d;
      }
    }
    throw new ValidationException("decision", "must be approve or reject");
  }
}
