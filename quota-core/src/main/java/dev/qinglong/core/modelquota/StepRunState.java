package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.WireNamed;

/**
 * Execution state of a StepRun, the one authority on whether a step runs (see
 * docs/design.md#reservation-and-settlement): {@code ready → running → succeeded | failed |
 * unknown} (the wire names). Admission takes {@code ready → running}; only the quota-aware
 * completion takes {@code running} to a terminal state.
 */
public enum StepRunState implements WireNamed {
  READY,
  RUNNING,
  SUCCEEDED,
  FAILED,
  UNKNOWN;

  public boolean terminal() {
    return this == SUCCEEDED || this == FAILED || this == UNKNOWN;
  }

  /** True if the state machine allows {@code this → next}. */
  public boolean canBecome(StepRunState next) {
    if (this == READY) {
      return next == RUNNING;
    }
    if (this == RUNNING) {
      return next.terminal();
    }
    return false;
  }

  /**
   * @throws StoreUnavailableException for a name that is not a state (a corrupt row)
   */
  public static StepRunState fromWire(String name) {
    return WireNamed.stored(StepRunState.class, name);
  }
}
