package dev.qinglong.gateway.lease;

import dev.qinglong.core.kernel.QingLongException;

/**
 * The stored shared-download policy differs from this process's configuration, or no policy was
 * created by slot 0 in time. Policies change only offline; the process refuses to start.
 */
public final class PolicyMismatchException extends QingLongException {
  public PolicyMismatchException(String message) {
    super(message);
  }
}
