package dev.qinglong.core.modelquota;

/**
 * An admitted invocation: its reservation and start receipts, and whether this call admitted it
 * ({@code created=false}: exact replay, the stored receipts returned unchanged). {@code window} is
 * the Project's window as the admission decided it (its rate-limit data), {@code null} where no
 * admission decided (a plain read) or its window could not be told.
 */
public record Admission(
    Reservation reservation, InvocationStart start, boolean created, WindowUsageReading window) {
  public Admission(Reservation reservation, InvocationStart start, boolean created) {
    this(reservation, start, created, null);
  }
}
