package dev.qinglong.core.modelquota;

import dev.qinglong.core.kernel.Cursors;
import dev.qinglong.core.kernel.ValidationException;
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
    return Cursors.encode(PREFIX, Long.toString(afterSeq));
  }

  /**
   * @return the sequence number to continue after; 0 for {@code null} (first page)
   * @throws ValidationException if the cursor was not issued by {@link #encode}
   */
  static long decode(String cursor) {
    Long after =
        Cursors.decode(
            cursor,
            PREFIX,
            ModelQuota.MAX_CURSOR_LENGTH,
            seq -> {
              if (!SEQ.matcher(seq).matches()) {
                throw new IllegalArgumentException("sequence");
              }
              return Long.parseLong(seq);
            });
    return after == null ? 0 : after;
  }
}
