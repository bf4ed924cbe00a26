package dev.qinglong.gateway.artifacts;

import dev.qinglong.core.kernel.QingLongException;

/**
 * The storage root has no valid identity file (a reader never creates one), or it is not the
 * storage the process was told to expect. The process refuses to start.
 */
public final class StorageIdentityException extends QingLongException {
  public StorageIdentityException(String message) {
    super(message);
  }

  public StorageIdentityException(String message, Throwable cause) {
    super(message, cause);
  }
}
