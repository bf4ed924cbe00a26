package dev.qinglong.core.modelquota;

import java.util.Objects;

/** What {@link ModelQuotaStore#complete} decided. Unavailability throws instead. */
public sealed interface CompletionOutcome {

  /** This call committed completion, ledger entry, settlement and the terminal StepRun. */
  record Completed(
      Reservation reservation,
      Completion completion,
      UsageLedgerEntry ledgerEntry,
      Settlement settlement)
      implements CompletionOutcome {
    public Completed {
      Objects.requireNonNull(reservation, "reservation");
      Objects.requireNonNull(completion, "completion");
      Objects.requireNonNull(ledgerEntry, "ledgerEntry");
      Objects.requireNonNull(settlement, "settlement");
    }
  }

  /**
   * The invocation was already completed; nothing was written. Members are {@code null} when the
   * receipt is missing: the caller verifies all five (exact replay: Start, Completion, Ledger,
   * Reservation and Settlement) or fails closed (conflict).
   */
  record Existing(
      Reservation reservation,
      InvocationStart start,
      Completion completion,
      UsageLedgerEntry ledgerEntry,
      Settlement settlement)
      implements CompletionOutcome {}

  /** The completion cannot be recorded; nothing was written and the reservation stays. */
  record Rejected(Reason reason) implements CompletionOutcome {}

  /** Why a completion was rejected. */
  enum Reason {
    /** No reservation for that invocation id in the Project. */
    NO_RESERVATION,
    /** The reservation exists but its start receipt or StepRun is missing or does not bind it. */
    MISSING_RECEIPT,
    /** The StepRun is not {@code running} under this invocation. */
    STEP_RUN_NOT_RUNNING,
    /** Reported tokens or cost exceed the reservation: a contract breach, refused. */
    USAGE_ABOVE_RESERVATION
  }
}
