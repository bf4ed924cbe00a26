package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ValidationException;

/** How an invocation ended, as its runtime reports it; each maps to one terminal StepRun state. */
public enum InvocationOutcome {
  SUCCEEDED("succeeded", StepRunState.SUCCEEDED),
  FAILED("failed", StepRunState.FAILED),
  /** The runtime cannot tell (crash, abort, lost provider response): the reservation stays. */
  UNKNOWN("unknown", StepRunState.UNKNOWN);

  private final String wireName;
  private final StepRunState terminalState;

  InvocationOutcome(String wireName, StepRunState terminalState) {
    this.wireName = wireName;
    this.terminalState = terminalState;
  }

  public String wireName() {
    return wireName;
  }

  public StepRunState terminalState() {
    return terminalState;
  }

  /**
   * @throws ValidationException if {@code name} is not succeeded, failed or unknown
   */
  public static InvocationOutcome fromWire(String name) {
    for (InvocationOutcome o : values()) {
      if (o.wireName.equals(name)) {
        return o;
      }
    }
    throw new ValidationException("outcome", "must be succeeded, failed or unknown");
  }
}
