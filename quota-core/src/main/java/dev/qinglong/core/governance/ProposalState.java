package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.WireNamed;

/**
 * Lifecycle of a proposal: decided once by its approval, published later by the worker. Wire names
 * are the lower-case constant names.
 */
public enum ProposalState implements WireNamed {
  PENDING,
  APPROVED,
  REJECTED,
  PUBLISHED;

  public static ProposalState fromWire(String name) {
    return WireNamed.stored(ProposalState.class, name);
  }
}
