package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.kernel.WireNamed;

/**
 * How an invocation ended, as its runtime reports it (wire names {@code succeeded}, {@code failed},
 * {@code unknown}); each maps to the terminal StepRun state of the same name.
 */
public enum InvocationOutcome implements WireNamed {
  SUCCEEDED,
  FAILED,
  /** The runtime cannot tell (crash, abort, lost provider response): the reservation stays. */
  UNKNOWN;

  public StepRunState terminalState() {
    return switch (this) {
      case SUCCEEDED -> StepRunState.SUCCEEDED;
      case FAILED -> StepRunState.FAILED;
      case UNKNOWN -> StepRunState.UNKNOWN;
    };
  }

  /**
   * @throws ValidationException if {@code name} is not succeeded, failed or unknown
   */
  public static InvocationOutcome fromWire(String name) {
    return WireNamed.requested(
        InvocationOutcome.class, name, "outcome", "must be succeeded, failed or unknown");
  }
}
