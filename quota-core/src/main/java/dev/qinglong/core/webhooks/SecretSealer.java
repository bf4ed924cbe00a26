package dev.qinglong.core.webhooks;

/**
 * Seals signing secrets before they reach a database, so that a reader of the database (a backup, a
 * replica, a read-only login) cannot sign a webhook: only a process holding the sealing key can.
 */
public interface SecretSealer {
  /** The sealed form of {@code secret}, as stored. */
  byte[] seal(byte[] secret);

  /**
   * The secret {@link #seal} sealed.
   *
   * @throws dev.qinglong.core.kernel.StoreUnavailableException if it was not sealed with this key
   *     or was changed (fail closed)
   */
  byte[] open(byte[] sealed);
}
