package dev.qinglong.gateway.governor;

import dev.qinglong.core.kernel.QingLongException;

/**
 * The serving gate is closed (shared-download lease lost or never valid): no more payload may be
 * sent. The download must be aborted; HTTP maps it to 503 before the body starts.
 */
public final class DownloadsHaltedException extends QingLongException {
  public DownloadsHaltedException(String message) {
    super(message);
  }
}
