package dev.qinglong.core.governance;

import java.util.List;

/** One page of a Project's proposals; {@code nextCursor} is null on the last page. */
public record ProposalPage(List<Proposal> items, String nextCursor) {
  public ProposalPage {
    items = List.copyOf(items);
  }
}
