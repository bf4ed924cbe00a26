package dev.qinglong.core.kernel;

/**
 * The state of one rate limit after a decision, as a client's rate-limit header fields state it:
 * the limit, what is left of it and the whole seconds until its window resets, all as the deciding
 * statement returned them (the database clock; no clock of this process is involved).
 *
 * @param name the limit's name, a plain token (e.g. a quota operation's wire name)
 * @param limit the requests allowed per window
 * @param windowSeconds the window, in whole seconds (rounded up)
 * @param remaining what is left of the limit in the current window, 0..limit
 * @param resetSeconds whole seconds until the window ends, 1..windowSeconds for an admitted
 *     request, or the refusal's own retry time for a refused one
 */
public record RateLimit(
    String name, long limit, long windowSeconds, long remaining, long resetSeconds) {}
