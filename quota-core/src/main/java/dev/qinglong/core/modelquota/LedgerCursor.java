package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.ValidationException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The opaque ledger cursor: base64url of {@code ledger:v1:<seq>}. Opaque so clients do not build
 * cursors or depend on sequence numbers; it carries no Project, so it reveals nothing, and a cursor
 * only ever selects entries of the path's own Project.
 */
final class LedgerCursor {
  private static final String PREFIX = "ledger:v1:";
  private static final Pattern SEQ = Pattern.compile("0|[1-9][0-9]{0,17}");

  private LedgerCursor() {}

  static String encode(long afterSeq) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((PREFIX + afterSeq).getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * @return the sequence number to continue after; 0 for {@code null} (first page)
   * @throws ValidationException if the cursor was not issued by {@link #encode}
   */
  static long decode(String cursor) {
    if (cursor == null) {
      return 0;
    }
    String text;
    try {
      if (cursor.length() > ModelQuota.MAX_CURSOR_LENGTH) {
        throw new IllegalArgumentException("too long");
      }
      text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.US_ASCII);
    } catch (IllegalArgumentException e) {
      throw new ValidationException("cursor", "is not a cursor this server issued");
    }
    if (!text.startsWith(PREFIX) || !SEQ.matcher(text.substring(PREFIX.length())).matches()) {
      throw new ValidationException("cursor", "is not a cursor this server issued");
    }
    return Long.parseLong(text.substring(PREFIX.length()));
  }
}
