package dev.qinglong.core.modelquota;

/**
 * Execution state of a StepRun, the one authority on whether a step runs (ADR 001 §2): {@code ready
 * → running → succeeded | failed | unknown}. Admission takes {@code ready → running}; only the
 * quota-aware completion takes {@code running} to a terminal state.
 */
public enum StepRunState {
  READY("ready"),
  RUNNING("running"),
  SUCCEEDED("succeeded"),
  FAILED("failed"),
  UNKNOWN("unknown");

  private final String wireName;

  StepRunState(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

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
   * @throws IllegalStateException for a name that is not a state (a corrupt row)
   */
  public static StepRunState fromWire(String name) {
    for (StepRunState s : values()) {
      if (s.wireName.equals(name)) {
        return s;
      }
    }
    throw new IllegalStateException("unknown stored step run state " + name);
  }
}
