package dev.qinglong.postgres;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.modelquota.WindowRef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

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
    return keyOf(window.canonicalJson());
  }

  /**
   * The key of {@code ["ledger", projectId]}: serialises appends to one Project's UsageLedger so
   * that ledger sequence numbers are gap-free and commit in order (a page read never skips an entry
   * that commits later with a smaller number). Always taken after a window lock, never before, so
   * the two cannot deadlock.
   */
  public static long ledger(String projectId) {
    // A Project id is of the identifier grammar ([A-Za-z0-9._:-]), so it needs no JSON escaping
    // and this is the canonical spelling of the array.
    Identifiers.require("projectId", projectId);
    return keyOf("[\"ledger\",\"" + projectId + "\"]");
  }

  /** The first 8 bytes (big-endian, signed) of SHA-256 over {@code canonical}. */
  static long keyOf(String canonical) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
      return ByteBuffer.wrap(hash, 0, 8).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
    }
  }
}
