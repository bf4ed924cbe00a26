package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Sha256Digest;
import java.util.function.Function;

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

  /**
   * Builds a receipt with its own digest: {@code build} makes it from a digest, first with a
   * placeholder to encode its members, then with the digest of that encoding.
   */
  static <R extends Receipt> R sealed(Function<Sha256Digest, R> build) {
    return build.apply(Sha256Digest.ofUtf8(build.apply(Receipts.PLACEHOLDER).canonicalJson()));
  }

  /** True if the stored digest is the digest of the stored members (no drift). */
  default boolean digestMatches() {
    return digest().equals(Sha256Digest.ofUtf8(canonicalJson()));
  }
}
