package dev.qinglong.gateway.governor;

import dev.qinglong.core.kernel.QingLongException;

/**
 * A chunk would have had to wait longer than its bound for tokens. Nothing was consumed for the
 * refused part, so the caller may retry or abort the download.
 */
public final class ThrottleTimeoutException extends QingLongException {
  public ThrottleTimeoutException(String message) {
    super(message);
  }
}
