package dev.qinglong.core.modelquota;

/**
 * The result of one recovery sweep ({@link ModelQuota#recoverStale}).
 *
 * @param examined running StepRuns older than the bound that the sweep looked at
 * @param recovered completed as {@code unknown} by this sweep (their whole reservation stays)
 * @param alreadyCompleted completed by someone else first (a late completion or another sweep):
 *     nothing written by this sweep
 * @param conflicts refused with a conflict (drifted or missing receipt): left running, logged by
 *     the caller; the next sweep tries again
 */
public record RecoverySweep(int examined, int recovered, int alreadyCompleted, int conflicts) {}
