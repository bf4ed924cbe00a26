package dev.qinglong.gateway.lease;

import java.util.UUID;

/**
 * A snapshot of a lease, for readiness and tests.
 *
 * @param slot the slot held
 * @param owner this process's owner UUID (new per start)
 * @param generation the slot's generation this owner holds (fencing token)
 * @param state the life-cycle state
 * @param locallyValid whether the local window is valid at the time of the snapshot
 * @param renewals renewals that succeeded in time
 * @param failedRenewals renewal attempts that failed with a database error
 * @param lateAnswers renewal answers that said "ok" but arrived after the local window closed
 * @param lossReason why the lease was lost, or {@code null}
 */
public record LeaseStatus(
    int slot,
    UUID owner,
    long generation,
    LeaseState state,
    boolean locallyValid,
    long renewals,
    long failedRenewals,
    long lateAnswers,
    String lossReason) {}
