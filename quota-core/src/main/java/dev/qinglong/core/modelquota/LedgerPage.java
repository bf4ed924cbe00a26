package dev.qinglong.core.modelquota;

import java.util.List;

/**
 * One page of a Project's UsageLedger in ledger order. {@code nextCursor} is {@code null} on the
 * last page; otherwise it is opaque and continues after the last item.
 */
public record LedgerPage(List<UsageLedgerEntry> items, String nextCursor) {
  public LedgerPage {
    items = List.copyOf(items);
  }
}
