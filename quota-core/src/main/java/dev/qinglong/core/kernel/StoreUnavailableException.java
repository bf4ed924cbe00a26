package dev.qinglong.core.kernel;

/**
 * The one exception every store port throws when it cannot give a definite answer: the database is
 * unreachable, a statement failed, a returned row is corrupt, or the outcome of a write is unknown.
 * Callers must fail closed: never treat it as an allow.
 */
public final class StoreUnavailableException extends QingLongException {
  public StoreUnavailableException(String message) {
    super(message);
  }

  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
