package dev.qinglong.core.modelquota;

import java.util.Objects;

/**
 * Usage of one window: invocations = number of reservations; tokens and cost = settled amounts
 * where settled, reserved amounts otherwise (docs/design.md#windows).
 */
public record WindowUsage(WindowRef window, long invocations, long tokens, long costMicros) {
  public WindowUsage {
    Objects.requireNonNull(window, "window");
    if (invocations < 0 || tokens < 0 || costMicros < 0) {
      throw new IllegalStateException("negative window usage");
    }
  }
}
