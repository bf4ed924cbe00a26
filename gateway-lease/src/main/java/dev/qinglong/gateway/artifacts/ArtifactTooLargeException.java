package dev.qinglong.gateway.artifacts;

import dev.qinglong.core.kernel.QingLongException;

/** An upload exceeded {@code qinglong.artifacts.max-bytes}; nothing was stored (HTTP 413). */
public final class ArtifactTooLargeException extends QingLongException {
  public ArtifactTooLargeException(long maxBytes) {
    super("artifact exceeds the upload cap of " + maxBytes + " bytes");
  }
}
