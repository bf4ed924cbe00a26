package dev.qinglong.app.http;

import dev.qinglong.core.kernel.ValidationException;
import java.util.regex.Pattern;

/**
 * Query parameters the routes take as whole numbers. Strict on purpose, unlike a conversion to
 * {@code Integer}: an empty value, a sign, spaces or a fraction are refused (400 naming the
 * parameter), not read as absent or as a number; the range is the core's to check.
 */
public final class QueryParameters {
  private static final Pattern WHOLE_NUMBER = Pattern.compile("[0-9]{1,9}");

  private QueryParameters() {}

  /** {@code raw} as a whole number, or null if the parameter is absent. */
  public static Integer wholeNumber(String raw, String name) {
    if (raw == null) {
      return null;
    }
    if (!WHOLE_NUMBER.matcher(raw).matches()) {
      throw new ValidationException(name, "must be a whole number");
    }
    return Integer.parseInt(raw);
  }
}
