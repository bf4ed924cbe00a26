package dev.qinglong.core.kernel;

/**
 * The request contradicts durable state: an idempotency identity reused with other content, a
 * second decision, a digest mismatch, or an object that does not exist in the caller's Project. The
 * last case is deliberately indistinguishable from the others (no existence oracle).
 */
public final class ConflictException extends QingLongException {
  public ConflictException(String message) {
    super(message);
  }
}
