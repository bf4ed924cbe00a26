package dev.qinglong.core.quota;

/**
 * The caller's use of one operation's management quota in the current window, on the database
 * clock. With no window open (no bucket, or its window has ended) {@code used} is 0 and the window
 * fields are null: the next request opens a window of its own.
 *
 * @param limit the effective limit (the user's override, else the Project's policy, else the
 *     default) and {@code limitSource} where it came from
 * @param shadowLimit the shadow limit in force, or null
 * @param resetAtMs when the current window ends (window start + window length)
 * @param resetSeconds whole seconds from the database's now to {@code resetAtMs}, rounded up
 */
public record OperationUsage(
    QuotaOperation operation,
    int limit,
    LimitSource limitSource,
    Integer shadowLimit,
    int used,
    int remaining,
    Long windowStartedAtMs,
    Long resetAtMs,
    Long resetSeconds) {}
