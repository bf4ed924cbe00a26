package dev.qinglong.core.kernel;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Function;

/**
 * Opaque page cursors: base64url (no padding) of a versioned prefix and the position to continue
 * after. Opaque so clients neither build cursors nor depend on what they hold.
 */
public final class Cursors {
  private Cursors() {}

  /** The cursor of {@code position} under {@code prefix}. */
  public static String encode(String prefix, String position) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((prefix + position).getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * The position a cursor of {@link #encode} carries, as {@code parse} reads it; null for a null
   * cursor (the first page).
   *
   * @param parse reads the text after the prefix; throws {@link IllegalArgumentException} for text
   *     no cursor of this kind holds
   * @throws ValidationException if the cursor is longer than {@code maxLength} or was not issued
   *     under {@code prefix}
   */
  public static <T> T decode(
      String cursor, String prefix, int maxLength, Function<String, T> parse) {
    if (cursor == null) {
      return null;
    }
    try {
      if (cursor.isEmpty() || cursor.length() > maxLength) {
        throw new IllegalArgumentException("length");
      }
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
      if (!text.startsWith(prefix)) {
        throw new IllegalArgumentException("prefix");
      }
      return parse.apply(text.substring(prefix.length()));
    } catch (IllegalArgumentException e) {
      throw new ValidationException("cursor", "is not a cursor this server issued");
    }
  }

  /**
   * The user id a cursor of {@link #encode} over a page in user-id order carries; null for a null
   * cursor (the first page).
   *
   * @throws ValidationException if the cursor was not issued under {@code prefix} or holds no valid
   *     user id
   */
  public static String decodeUserId(String cursor, String prefix, int maxLength) {
    return decode(
        cursor,
        prefix,
        maxLength,
        userId -> {
          if (!Identifiers.isValid(userId)) {
            throw new IllegalArgumentException("content");
          }
          return userId;
        });
  }
}
