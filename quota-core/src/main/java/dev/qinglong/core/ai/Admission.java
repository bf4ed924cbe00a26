package dev.qinglong.core.ai;

/**
 * An admitted invocation: its reservation and start receipts, and whether this call admitted it
 * ({@code created=false}: exact replay, the stored receipts returned unchanged).
 */
public record Admission(Reservation reservation, InvocationStart start, boolean created) {}
