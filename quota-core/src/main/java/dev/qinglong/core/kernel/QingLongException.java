package dev.qinglong.core.kernel;

/** Base of every exception the core throws on purpose. Messages are safe to log, never to show. */
public abstract class QingLongException extends RuntimeException {
  protected QingLongException(String message) {
    super(message);
  }

  protected QingLongException(String message, Throwable cause) {
    super(message, cause);
  }
}
