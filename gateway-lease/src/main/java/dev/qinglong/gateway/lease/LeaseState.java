package dev.qinglong.gateway.lease;

/** Life cycle of a shared-download lease. Only {@link #ACTIVE} serves; the others are terminal. */
public enum LeaseState {
  /** Held and renewing; payload may flow while the local window is valid. */
  ACTIVE,
  /** Lost (refused renewal, late answer, local window expired, barrier lost): restart needed. */
  LOST,
  /** Closed by the process (shutdown); the reservation stays until it expires in the database. */
  CLOSED
}
