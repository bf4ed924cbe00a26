package dev.qinglong.app.artifacts;

/**
 * A parsed {@code Range} request header (RFC 9110 §14), restricted to what the artifact route
 * serves: one byte range. Multiple ranges, other units and malformed headers are ignored (the whole
 * artifact is sent with 200, which RFC 9110 allows); a single well-formed range that does not
 * overlap the artifact is unsatisfiable (416).
 *
 * @param kind what to answer
 * @param start first byte (for {@link Kind#PARTIAL})
 * @param length number of bytes (for {@link Kind#PARTIAL})
 */
public record ByteRange(Kind kind, long start, long length) {

  /** What a Range header asks for. */
  public enum Kind {
    /** No usable Range: send everything (200). */
    FULL,
    /** One satisfiable range (206). */
    PARTIAL,
    /** One range outside the artifact (416). */
    UNSATISFIABLE
  }

  private static final int MAX_HEADER = 200;

  /**
   * @param header the Range header or null
   * @param size the artifact's length
   */
  public static ByteRange parse(String header, long size) {
    ByteRange full = new ByteRange(Kind.FULL, 0, size);
    if (header == null || header.length() > MAX_HEADER) {
      return full;
    }
    String h = header.trim();
    if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
      return full;
    }
    String spec = h.substring(6).trim();
    if (spec.isEmpty() || spec.indexOf(',') >= 0) {
      return full;
    }
    int dash = spec.indexOf('-');
    if (dash < 0) {
      return full;
    }
    String first = spec.substring(0, dash).trim();
    String last = spec.substring(dash + 1).trim();
    try {
      if (first.isEmpty()) {
        // Suffix range: the last N bytes.
        if (!digits(last)) {
          return full;
        }
        long n = Long.parseLong(last);
        if (n == 0 || size == 0) {
          return new ByteRange(Kind.UNSATISFIABLE, 0, 0);
        }
        long count = Math.min(n, size);
        return new ByteRange(Kind.PARTIAL, size - count, count);
      }
      if (!digits(first) || (!last.isEmpty() && !digits(last))) {
        return full;
      }
      long start = Long.parseLong(first);
      long end = last.isEmpty() ? Long.MAX_VALUE : Long.parseLong(last);
      if (end < start) {
        return full; // syntactically invalid: ignored
      }
      if (start >= size) {
        return new ByteRange(Kind.UNSATISFIABLE, 0, 0);
      }
      long endInclusive = Math.min(end, size - 1);
      return new ByteRange(Kind.PARTIAL, start, endInclusive - start + 1);
    } catch (NumberFormatException e) {
      return full; // more digits than a long holds
    }
  }

  private static boolean digits(String s) {
    if (s.isEmpty() || s.length() > 19) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
