package dev.qinglong.core.modelquota;

import java.util.Objects;

/**
 * Everything one admission depends on, as a store read it in one consistent state: the database
 * clock, the window whose heads were read (the store finds it from {@code quota} and {@code nowMs}
 * as {@link WindowRef#containing} does), the latest Project quota policy, receipts already under
 * the invocation id, the StepRun, its model's latest policy, a reservation already bound to the
 * StepRun, and the window's latest reservation and settlement. Absent rows are {@code null}.
 */
public record AdmissionSnapshot(
    long nowMs,
    WindowRef window,
    ProjectQuotaPolicy quota,
    Reservation existing,
    InvocationStart existingStart,
    StepRun stepRun,
    ModelInvocationPolicy policy,
    Reservation ofStepRun,
    Reservation windowHead,
    Settlement settledHead) {
  public AdmissionSnapshot {
    Objects.requireNonNull(window, "window");
  }
}
