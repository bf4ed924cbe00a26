package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ValidationException;

/** Bounds of the numbers the model quota accepts, so sums over a window can never overflow. */
public final class Limits {
  /** Per invocation: at most 10^9 tokens. */
  public static final long MAX_INVOCATION_TOKENS = 1_000_000_000L;

  /** Per window or per invocation: at most 10^15 tokens or micro-units of cost. */
  public static final long MAX_AMOUNT = 1_000_000_000_000_000L;

  /** Per window: at most 10^9 invocations. */
  public static final long MAX_INVOCATIONS = 1_000_000_000L;

  private Limits() {}

  static long require(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw new ValidationException(field, "must be between " + min + " and " + max);
    }
    return value;
  }

  static Long requireNullable(String field, Long value, long min, long max) {
    return value == null ? null : require(field, value, min, max);
  }
}
