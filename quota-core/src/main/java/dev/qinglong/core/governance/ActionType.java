package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.ValidationException;
import java.util.Arrays;

/** What a plugin-package action does. */
public enum ActionType {
  INSTALL("install"),
  UPGRADE("upgrade"),
  REMOVE("remove");

  private final String wireName;

  ActionType(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /**
   * @throws ValidationException if {@code name} is not install, upgrade or remove
   */
  public static ActionType fromWire(String name) {
    return Arrays.stream(values())
        .filter(t -> t.wireName.equals(name))
        .findFirst()
        .orElseThrow(
            () -> new ValidationException("action.type", "must be install, upgrade or remove"));
  }
}
