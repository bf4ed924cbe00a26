package dev.qinglong.core.kernel;

import java.util.regex.Pattern;

/** The identifier grammar of the contract: 1–128 characters of {@code [A-Za-z0-9._:-]}. */
public final class Identifiers {
  public static final int MAX_LENGTH = 128;

  /** The characters of the grammar, as a regular-expression class body. */
  public static final String CHARACTERS = "A-Za-z0-9._:-";

  /** The grammar as a regular expression (whole value), also stated by the OpenAPI document. */
  public static final String PATTERN = "[" + CHARACTERS + "]{1," + MAX_LENGTH + "}";

  private static final Pattern GRAMMAR = Pattern.compile(PATTERN);

  private Identifiers() {}

  /**
   * Returns {@code value} if it is a valid identifier.
   *
   * @throws ValidationException naming {@code field} if it is null, empty, too long or has a
   *     character outside the grammar
   */
  public static String require(String field, String value) {
    if (ValidationException.required(field, value).isEmpty() || value.length() > MAX_LENGTH) {
      throw new ValidationException(field, "must be 1-" + MAX_LENGTH + " characters");
    }
    if (!GRAMMAR.matcher(value).matches()) {
      throw new ValidationException(field, "may only contain A-Z a-z 0-9 . _ : -");
    }
    return value;
  }

  /** True if {@code value} is a valid identifier. */
  public static boolean isValid(String value) {
    return value != null && GRAMMAR.matcher(value).matches();
  }
}
