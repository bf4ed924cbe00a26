package dev.qinglong.core.policy;

import dev.qinglong.core.kernel.Cursors;
import dev.qinglong.core.kernel.ValidationException;
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
    return Cursors.encode(PREFIX, afterUserId);
  }

  /**
   * @return the user id to continue after; null for {@code null} (first page)
   * @throws ValidationException if the cursor was not issued by {@link #encode}
   */
  static String decode(String cursor) {
    return Cursors.decodeUserId(cursor, PREFIX, ProjectPolicy.MAX_CURSOR_LENGTH);
  }
}
