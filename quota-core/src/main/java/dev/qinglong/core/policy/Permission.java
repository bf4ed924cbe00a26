package dev.qinglong.core.policy;

import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.kernel.WireNamed;
import java.util.Locale;

/**
 * A permission a user holds in one Project. Wire names are part of the contract: {@code
 * package.manage}, {@code approval.decide}, {@code package.read}, {@code model.invoke}, {@code
 * model.usage.read}, {@code project.admin}.
 */
public enum Permission implements WireNamed {
  PACKAGE_MANAGE,
  APPROVAL_DECIDE,
  PACKAGE_READ,
  MODEL_INVOKE,
  MODEL_USAGE_READ,
  PROJECT_ADMIN;

  /** The constant's name in lower case with dots for underscores. */
  @Override
  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '.');
  }

  /**
   * @throws ValidationException if {@code name} is not one of the contract's permission names
   */
  public static Permission fromWire(String name) {
    return WireNamed.requested(Permission.class, name, "permissions", "unknown permission");
  }
}
