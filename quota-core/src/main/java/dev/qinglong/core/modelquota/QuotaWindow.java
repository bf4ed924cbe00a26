package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.kernel.WireNamed;

/** The fixed, epoch-aligned window lengths a Project quota may use (see docs/design.md#windows). */
public enum QuotaWindow implements WireNamed {
  ONE_MINUTE("1m", 60_000L),
  ONE_HOUR("1h", 3_600_000L),
  ONE_DAY("1d", 86_400_000L);

  /**
   * The window that accounts usage when a Project has no quota policy: usage is still recorded and
   * readable per day, nothing is fenced.
   */
  public static final QuotaWindow UNFENCED = ONE_DAY;

  private final String wireName;
  private final long millis;

  QuotaWindow(String wireName, long millis) {
    this.wireName = wireName;
    this.millis = millis;
  }

  @Override
  public String wireName() {
    return wireName;
  }

  public long millis() {
    return millis;
  }

  /** Start of the window containing {@code epochMs}: aligned to the Unix epoch, never negative. */
  public long startOf(long epochMs) {
    return Math.floorDiv(epochMs, millis) * millis;
  }

  /**
   * @throws ValidationException if {@code name} is not 1m, 1h or 1d
   */
  public static QuotaWindow fromWire(String name) {
    return WireNamed.requested(QuotaWindow.class, name, "window", "must be 1m, 1h or 1d");
  }

  /**
   * The window of a stored length.
   *
   * @throws IllegalStateException if no window has that length (a corrupt row)
   */
  public static QuotaWindow ofMillis(long millis) {
    for (QuotaWindow w : values()) {
      if (w.millis == millis) {
        return w;
      }
    }
    throw new IllegalStateException("no quota window of " + millis + " ms");
  }
}
