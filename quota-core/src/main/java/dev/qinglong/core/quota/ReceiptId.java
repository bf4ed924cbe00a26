package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.Identifiers;

/**
 * The idempotency identity a request spends quota under (actionRef, decisionId or inspectionId).
 * Bounded by the identifier grammar, so 1000 receipts always fit the bucket's 256 KiB limit.
 */
public record ReceiptId(String value) {
  public ReceiptId {
    Identifiers.require("receiptId", value);
  }
}
