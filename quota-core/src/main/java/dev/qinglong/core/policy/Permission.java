package dev.qinglong.core.policy;

import dev.qinglong.core.kernel.ValidationException;
import java.util.Arrays;

/** A permission a user holds in one Project. Wire names are part of the contract. */
public enum Permission {
  PACKAGE_MANAGE("package.manage"),
  APPROVAL_DECIDE("approval.decide"),
  PACKAGE_READ("package.read"),
  MODEL_INVOKE("model.invoke"),
  MODEL_USAGE_READ("model.usage.read"),
  PROJECT_ADMIN("project.admin");

  private final String wireName;

  Permission(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /**
   * @throws ValidationException if {@code name} is not one of the contract's permission names
   */
  public static Permission fromWire(String name) {
    return Arrays.stream(values())
        .filter(p -> p.wireName.equals(name))
        .findFirst()
        .orElseThrow(() -> new ValidationException("permissions", "unknown permission"));
  }
}
