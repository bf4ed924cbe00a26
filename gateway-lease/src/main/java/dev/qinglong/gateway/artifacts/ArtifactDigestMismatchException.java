package dev.qinglong.gateway.artifacts;

import dev.qinglong.core.kernel.QingLongException;

/** The uploaded bytes do not hash to the digest they were uploaded under; nothing was stored. */
public final class ArtifactDigestMismatchException extends QingLongException {
  public ArtifactDigestMismatchException() {
    super("uploaded bytes do not match the artifact digest");
  }
}
