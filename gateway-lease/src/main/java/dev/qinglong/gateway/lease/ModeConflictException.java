package dev.qinglong.gateway.lease;

import dev.qinglong.core.kernel.QingLongException;

/**
 * The download mode barrier is held in the other mode (standalone versus shared), or a standalone
 * process found a stored shared policy without an explicit override. The process refuses to start.
 */
public final class ModeConflictException extends QingLongException {
  public ModeConflictException(String message) {
    super(message);
  }
}
