package dev.qinglong.core.kernel;

import java.util.List;
import java.util.Objects;

/**
 * The result of an operation together with the rate limits that decided it: what the caller's
 * answer reports (HTTP rate-limit header fields), carried with the result instead of through a side
 * channel.
 *
 * @param result the operation's result
 * @param rateLimits the rate limits decided on, in the order they were decided; empty when no limit
 *     applies (e.g. a disabled quota)
 */
public record Limited<T>(T result, List<RateLimit> rateLimits) {
  public Limited {
    Objects.requireNonNull(result, "result");
    rateLimits = List.copyOf(rateLimits);
  }

  /** {@code result} decided by {@code rateLimit}, or by none if it is null. */
  public static <T> Limited<T> of(T result, RateLimit rateLimit) {
    return new Limited<>(result, rateLimit == null ? List.of() : List.of(rateLimit));
  }
}
