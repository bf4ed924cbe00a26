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

  /**
   * The constant a client named, for a request member.
   *
   * @throws ValidationException naming {@code member} with {@code message} for any other name
   */
  static <E extends Enum<E> & WireNamed> E requested(
      Class<E> type, String wireName, String member, String message) {
    return lookup(type, wireName).orElseThrow(() -> new ValidationException(member, message));
  }

  /**
   * The constant a database column holds.
   *
   * @throws StoreUnavailableException for any other value: a corrupt row is refused (fail closed)
   */
  static <E extends Enum<E> & WireNamed> E stored(Class<E> type, String wireName) {
    return lookup(type, wireName)
        .orElseThrow(
            () -> new StoreUnavailableException("corrupt row: unknown " + type.getSimpleName()));
  }
}
