package dev.qinglong.gateway.lease;

import dev.qinglong.core.kernel.QingLongException;

/**
 * Another standalone download server holds the mode barrier of this database. Unlike a {@link
 * ModeConflictException} this is not a configuration error: several {@code all}/{@code writer}
 * replicas share one database, only the first serves downloads and the others start without them.
 */
public final class StandaloneBarrierHeldException extends QingLongException {
  public StandaloneBarrierHeldException(String message) {
    super(message);
  }
}
