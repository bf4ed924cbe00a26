package dev.qinglong.gateway.lease;

import dev.qinglong.core.kernel.QingLongException;

/** The lease was lost (or never became valid) during start-up. */
public final class LeaseLostException extends QingLongException {
  public LeaseLostException(String message) {
    super(message);
  }
}
