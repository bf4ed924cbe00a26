package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.Cursors;
import dev.qinglong.core.kernel.ValidationException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Project's management-quota policy as its administrators read it: the defaults, the Project's
 * latest revision (if it ever set one), one page of its user overrides in user-id order ({@code
 * nextCursor} null on the last page) and who a shadow limit would have refused in the current
 * windows.
 *
 * <p>The cursor is opaque: base64url of {@code quota-users:v1:<userId>}, the page's last user.
 */
public record QuotaPolicyPage(
    long windowMs,
    Map<QuotaOperation, Integer> defaults,
    Optional<QuotaLimitsRevision> project,
    List<QuotaLimitsRevision> users,
    String nextCursor,
    List<ShadowRefusal> shadowRefusals) {
  private static final String PREFIX = "quota-users:v1:";

  /** The longest cursor accepted (an issued one is far shorter). */
  public static final int MAX_CURSOR_LENGTH = 256;

  public QuotaPolicyPage {
    defaults = Map.copyOf(defaults);
    users = List.copyOf(users);
    shadowRefusals = List.copyOf(shadowRefusals);
  }

  static String encode(String afterUserId) {
    return Cursors.encode(PREFIX, afterUserId);
  }

  /**
   * @return the user id to continue after; null for {@code null} (first page)
   * @throws ValidationException if the cursor was not issued by {@link #encode}
   */
  static String decode(String cursor) {
    return Cursors.decodeUserId(cursor, PREFIX, MAX_CURSOR_LENGTH);
  }
}
