package dev.qinglong.core.kernel;

import java.util.Locale;
import java.util.Optional;

/**
 * A constant with a name on the wire: in the API, or in a database column. Wire names are part of
 * the contract, so renaming a constant whose wire name is derived changes the contract.
 */
public interface WireNamed {
  /** The constant's own name (an enum's {@link Enum#name}). */
  String name();

  /** The name on the wire; by default the constant's name in lower case. */
  default String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The constant of {@code type} whose wire name is {@code wireName}; empty for any other. */
  static <E extends Enum<E> & WireNamed> Optional<E> lookup(Class<E> type, String wireName) {
    for (E constant : type.getEnumConstants()) {
      if (constant.wireName().equals(wireName)) {
        return Optional.of(constant);
      }
    }
    return Optional.empty();
  }
}
