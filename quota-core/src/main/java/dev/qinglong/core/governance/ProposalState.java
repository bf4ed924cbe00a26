package dev.qinglong.core.governance;

/** Lifecycle of a proposal: decided once by its approval, published later by the worker. */
public enum ProposalState {
  PENDING("pending"),
  APPROVED("approved"),
  REJECTED("rejected"),
  PUBLISHED("published");

  private final String wireName;

  ProposalState(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public static ProposalState fromWire(String name) {
    for (ProposalState s : values()) {
      if (s.wireName.equals(name)) {
        return s;
      }
    }
    throw new IllegalStateException("unknown stored proposal state " + name + ". Indicates a bug.");
  }
}
