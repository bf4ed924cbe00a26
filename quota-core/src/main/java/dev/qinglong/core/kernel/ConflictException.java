package dev.qinglong.core.kernel;

/**
 * The request contradicts durable state: a second decision, a digest mismatch, or an object that
 * does not exist in the caller's Project. The last case is deliberately indistinguishable from the
 * others (no existence oracle). An idempotency id reused for a different request is the subclass
 * {@link IdempotencyKeyReusedException}.
 */
public sealed class ConflictException extends QingLongException
    permits IdempotencyKeyReusedException {
  public ConflictException(String message) {
    super(message);
  }
}
