package dev.qinglong.core.modelquota;

/**
 * A completed invocation: every receipt of it, and whether this call completed it ({@code
 * created=false}: exact replay, the stored receipts returned unchanged).
 */
public record Settled(
    Reservation reservation,
    Completion completion,
    UsageLedgerEntry ledgerEntry,
    Settlement settlement,
    boolean created) {}
