package dev.qinglong.core.modelquota;

import java.util.Objects;

/**
 * What {@link ModelQuotaStore#admit} decided. Unavailability is not an outcome: the store throws
 * instead, so no code path can mistake it for an admission.
 */
public sealed interface AdmissionOutcome {

  /**
   * The window as the decision left it, for the caller's rate-limit answer: the usage including
   * this admission on an admission, the usage read on a refusal or a replay, the quota policy that
   * defines the window and the database clock of the decision. {@code null} on a rejection, or on a
   * replay whose window heads drifted.
   */
  WindowUsageReading window();

  /**
   * This call committed the StepRun {@code ready → running}, the start and the reservation; {@code
   * window} counts the reservation.
   */
  record Admitted(Reservation reservation, InvocationStart start, WindowUsageReading window)
      implements AdmissionOutcome {
    public Admitted {
      Objects.requireNonNull(reservation, "reservation");
      Objects.requireNonNull(start, "start");
      Objects.requireNonNull(window, "window");
    }
  }

  /**
   * The invocation id already has receipts; nothing was written. Either may be {@code null} when
   * missing: the caller verifies both (exact replay) or fails closed (conflict).
   */
  record Existing(Reservation reservation, InvocationStart start, WindowUsageReading window)
      implements AdmissionOutcome {}

  /**
   * A dimension of the window would exceed its limit; nothing was written. {@code
   * retryAfterSeconds} runs to the window's end on the database clock (at least 1).
   */
  record Refused(WindowUsageReading window, long retryAfterSeconds) implements AdmissionOutcome {
    public Refused {
      Objects.requireNonNull(window, "window");
      if (retryAfterSeconds < 1) {
        throw new IllegalArgumentException("retryAfterSeconds must be >= 1. Indicates a bug.");
      }
    }
  }

  /** The request cannot be admitted as stated; nothing was written. */
  record Rejected(Reason reason) implements AdmissionOutcome {
    @Override
    public WindowUsageReading window() {
      return null;
    }
  }

  /** Why an admission was rejected. */
  enum Reason {
    /** No StepRun with that id in the Project. */
    NO_STEP_RUN,
    /** The StepRun is not {@code ready} (already admitted under another invocation, or done). */
    STEP_RUN_NOT_READY,
    /** The StepRun's model has no invocation policy in the Project. */
    NO_MODEL_POLICY,
    /**
     * The Project limits cost but the model policy has no cost cap (fail closed: unknown cost must
     * not get through).
     */
    COST_CAP_MISSING,
    /** A ready StepRun already has a reservation: a receipt that must not exist. */
    UNEXPECTED_RECEIPT
  }
}
