package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Sha256Digest;

/**
 * An immutable, append-only receipt: a canonical encoding of its members and the SHA-256 digest of
 * that encoding, so any drift of a stored member is detected.
 */
public interface Receipt {
  /** The receipt's type and version, e.g. {@code qinglong/model-invocation-completion@v1}. */
  String type();

  /** The canonical encoding of every member but the digest. */
  String canonicalJson();

  Sha256Digest digest();

  /** True if the stored digest is the digest of the stored members (no drift). */
  default boolean digestMatches() {
    return digest().equals(Sha256Digest.ofUtf8(canonicalJson()));
  }
}
