package dev.qinglong.core.policy;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.ValidationException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * One page of a Project's members in user-id order; {@code nextCursor} is null on the last page.
 * The cursor is opaque: base64url of {@code members:v1:<userId>}, the last member of the page.
 */
public record MemberPage(List<ProjectMember> items, String nextCursor) {
  private static final String PREFIX = "members:v1:";

  public MemberPage {
    items = List.copyOf(items);
  }

  static String encode(String afterUserId) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((PREFIX + afterUserId).getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * @return the user id to continue after; null for {@code null} (first page)
   * @throws ValidationException if the cursor was not issued by {@link #encode}
   */
  static String decode(String cursor) {
    if (cursor == null) {
      return null;
    }
    try {
      if (cursor.isEmpty() || cursor.length() > ProjectPolicy.MAX_CURSOR_LENGTH) {
        throw new IllegalArgumentException("length");
      }
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
      if (!text.startsWith(PREFIX) || !Identifiers.isValid(text.substring(PREFIX.length()))) {
        throw new IllegalArgumentException("content");
      }
      return text.substring(PREFIX.length());
    } catch (IllegalArgumentException e) {
      throw new ValidationException("cursor", "is not a cursor this server issued");
    }
  }
}
