package dev.qinglong.core.kernel;

/**
 * An idempotency id (actionRef, decisionId, inspectionId, stepRunId, invocationId, …) was reused
 * for a different request: another target or another body than the one it first named (409 {@code
 * idempotency_key_reused}, see docs/design.md#idempotency-ids). Nothing was counted, allowed or
 * changed. A kind of {@link ConflictException}, so code that handles conflicts in general handles
 * this one too.
 */
public final class IdempotencyKeyReusedException extends ConflictException {
  public IdempotencyKeyReusedException(String message) {
    super(message);
  }
}
