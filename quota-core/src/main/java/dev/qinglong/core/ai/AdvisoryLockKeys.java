package dev.qinglong.core.ai;

/**
 * 64-bit keys for transaction-scoped advisory locks (PostgreSQL {@code pg_advisory_xact_lock}): the
 * first 8 bytes of SHA-256 over a canonical JSON array. The hash is stable across processes and
 * versions (unlike {@code String.hashCode} or PostgreSQL's {@code hashtext}), so every replica
 * locks the same key for the same window. A collision between two different arrays only makes two
 * unrelated windows share one lock: more serialisation, never less, so nothing is ever counted
 * wrongly because of it.
 */
public final class AdvisoryLockKeys {
  private AdvisoryLockKeys() {}

  /** The key of {@code [projectId, windowStartMs, windowMs]}: serialises one quota window. */
  public static long window(WindowRef window) {
    return WindowRef.lockKeyOf(window.canonicalJson());
  }

  /**
   * The key of {@code ["ledger", projectId]}: serialises appends to one Project's UsageLedger so
   * that ledger sequence numbers are gap-free and commit in order (a page read never skips an entry
   * that commits later with a smaller number). Always taken after a window lock, never before, so
   * the two cannot deadlock.
   */
  public static long ledger(String projectId) {
    return WindowRef.lockKeyOf(CanonicalJson.array("ledger", projectId));
  }
}
