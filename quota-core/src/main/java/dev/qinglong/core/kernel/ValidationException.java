package dev.qinglong.core.kernel;

/**
 * Input that breaks the contract's grammar or bounds. Thrown before any store is touched, so a
 * caller that sees it knows nothing was read, consumed or changed.
 */
public final class ValidationException extends QingLongException {
  private final String field;

  public ValidationException(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
  }

  /**
   * Returns {@code value}.
   *
   * @throws ValidationException naming {@code field} ("is required") if it is null
   */
  public static <T> T required(String field, T value) {
    if (value == null) {
      throw new ValidationException(field, "is required");
    }
    return value;
  }

  /** The name of the offending field, as the wire contract spells it. */
  public String field() {
    return field;
  }
}
