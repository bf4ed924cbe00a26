package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Identifiers;

/**
 * A proposal's position in a Project's proposal list: lists are ordered by ({@code createdAtMs},
 * {@code proposalId}), both immutable, so a page boundary never moves.
 */
public record ProposalKey(long createdAtMs, String proposalId) {
  public ProposalKey {
    if (createdAtMs < 0) {
      throw new IllegalArgumentException("createdAtMs must be >= 0");
    }
    Identifiers.require("proposalId", proposalId);
  }

  public static ProposalKey of(Proposal p) {
    return new ProposalKey(p.createdAtMs(), p.proposalId());
  }
}
