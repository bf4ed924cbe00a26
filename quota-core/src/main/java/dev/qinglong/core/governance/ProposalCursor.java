package dev.qinglong.core.governance;

import dev.qinglong.core.kernel.Cursors;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.ValidationException;
import java.util.regex.Pattern;

/**
 * The opaque proposal-list cursor: base64url of {@code proposals:v1:<createdAtMs>:<proposalId>},
 * the last item of the page before. It names only a proposal of the path's own Project (the caller
 * already read it), and a cursor only ever selects proposals of the path's Project.
 */
final class ProposalCursor {
  private static final String PREFIX = "proposals:v1:";
  private static final Pattern MS = Pattern.compile("0|[1-9][0-9]{0,17}");

  private ProposalCursor() {}

  static String encode(ProposalKey key) {
    return Cursors.encode(PREFIX, key.createdAtMs() + ":" + key.proposalId());
  }

  /**
   * @return the key to continue after; null for {@code null} (first page)
   * @throws ValidationException if the cursor was not issued by {@link #encode}
   */
  static ProposalKey decode(String cursor) {
    return Cursors.decode(
        cursor, PREFIX, PluginPackageGovernance.MAX_CURSOR_LENGTH, ProposalCursor::position);
  }

  private static ProposalKey position(String rest) {
    int colon = rest.indexOf(':');
    if (colon < 0 || !MS.matcher(rest.substring(0, colon)).matches()) {
      throw new IllegalArgumentException("position");
    }
    String proposalId = rest.substring(colon + 1);
    if (!Identifiers.isValid(proposalId)) {
      throw new IllegalArgumentException("id");
    }
    return new ProposalKey(Long.parseLong(rest.substring(0, colon)), proposalId);
  }
}
