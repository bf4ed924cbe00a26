package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Sha256Digest;

/** Shared pieces of the receipt records. */
final class Receipts {
  /** Stands in for the digest while a receipt is being built; never stored. */
  static final Sha256Digest PLACEHOLDER = new Sha256Digest("sha256:" + "0".repeat(64));

  private Receipts() {}
}
