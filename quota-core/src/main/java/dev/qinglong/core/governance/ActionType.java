package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.kernel.WireNamed;

/**
 * What a plugin-package action does; wire names {@code install}, {@code upgrade}, {@code remove}.
 */
public enum ActionType implements WireNamed {
  INSTALL,
  UPGRADE,
  REMOVE;

  /**
   * @throws ValidationException if {@code name} is not install, upgrade or remove
   */
  public static ActionType fromWire(String name) {
    return WireNamed.requested(
        ActionType.class, name, "action.type", "must be install, upgrade or remove");
  }
}
