package dev.qinglong.app.webhooks.delivery;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * When a failed delivery is tried again: exponential backoff with full jitter, within a budget
 * counted from the event's creation (24 h by default), after which the delivery is given up
 * (failed).
 *
 * <p>The exponential ceiling ({@code initial × 2^(n-1)}, capped) comes from resilience4j-core's
 * {@link IntervalFunction}. The jitter is drawn here on purpose: resilience4j's randomized backoff
 * spreads ±factor around the interval and clamps at the cap after randomizing (so delays pile up at
 * the cap), and draws from {@code Math.random}, which a test cannot control. Full jitter — uniform
 * between a small floor and the ceiling — spreads the retries of many endpoints that failed at the
 * same moment (an outage) instead of sending them back together.
 */
public final class RetrySchedule {
  /** Defaults: first retry within 5 s, ceiling doubling up to 1 h, given up after 24 h. */
  public static final Duration DEFAULT_INITIAL = Duration.ofSeconds(5);

  public static final Duration DEFAULT_MAX_INTERVAL = Duration.ofHours(1);
  public static final Duration DEFAULT_BUDGET = Duration.ofHours(24);

  /** No retry comes sooner than this after a failed attempt. */
  static final long FLOOR_MS = 1_000;

  private final IntervalFunction ceiling;
  private final long budgetMs;
  private final long floorMs;
  private final DoubleSupplier random;

  /** The default schedule. */
  public static RetrySchedule defaults() {
    return new RetrySchedule(DEFAULT_INITIAL, DEFAULT_MAX_INTERVAL, DEFAULT_BUDGET);
  }

  public RetrySchedule(Duration initial, Duration maxInterval, Duration budget) {
    this(initial, maxInterval, budget, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * @param initial the ceiling of the first retry's delay
   * @param maxInterval the largest ceiling
   * @param budget how long after its creation an event is still tried
   * @param random uniform in [0, 1): the jitter
   */
  RetrySchedule(Duration initial, Duration maxInterval, Duration budget, DoubleSupplier random) {
    if (initial.toMillis() < 1 || maxInterval.compareTo(initial) < 0 || budget.isNegative()) {
      throw new IllegalArgumentException(
          "need 1 ms <= initial <= maxInterval and budget >= 0; got "
              + initial
              + ", "
              + maxInterval
              + ", "
              + budget);
    }
    this.ceiling = IntervalFunction.ofExponentialBackoff(initial, 2.0, maxInterval);
    this.budgetMs = budget.toMillis();
    this.floorMs = Math.min(FLOOR_MS, initial.toMillis());
    this.random = Objects.requireNonNull(random, "random");
  }

  /** The delay ceiling after the {@code attempts}-th failed attempt ({@code attempts >= 1}). */
  long ceilingMs(int attempts) {
    return ceiling.apply(attempts);
  }

  /**
   * When to try again after a failed attempt.
   *
   * @param createdAtMs when the event was created
   * @param attempts attempts made so far, including the one that just failed ({@code >= 1})
   * @param nowMs now
   * @return the next attempt's time, or null when it would fall after the budget: give up
   */
  public Long nextAttemptAtMs(long createdAtMs, int attempts, long nowMs) {
    long top = ceilingMs(Math.max(1, attempts));
    long delay = floorMs + (long) (random.getAsDouble() * (top - floorMs + 1));
    long next = nowMs + Math.min(delay, top);
    return next > createdAtMs + budgetMs ? null : next;
  }
}
