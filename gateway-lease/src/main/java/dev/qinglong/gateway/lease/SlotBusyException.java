package dev.qinglong.gateway.lease;

import dev.qinglong.core.kernel.QingLongException;

/**
 * The slot is held by a live (renewing) owner, or a stale reservation did not expire within the
 * stale wait. The process must not start serving.
 */
public final class SlotBusyException extends QingLongException {
  public SlotBusyException(String message) {
    super(message);
  }
}
