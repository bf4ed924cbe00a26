package dev.qinglong.core.modelquota;

/**
 * Everything one completion depends on, as a store read it in one consistent state: the database
 * clock, the invocation's reservation, completion, ledger entry, settlement and start, its StepRun,
 * the latest settlement of the reservation's window and the Project's highest ledger sequence
 * number (0 while empty). Absent rows are {@code null}.
 */
public record CompletionSnapshot(
    long nowMs,
    Reservation reservation,
    Completion completion,
    UsageLedgerEntry ledgerEntry,
    Settlement settlement,
    InvocationStart start,
    StepRun stepRun,
    Settlement settledHead,
    long lastLedgerSeq) {}
