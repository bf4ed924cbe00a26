package dev.qinglong.core.modelquota;

import java.util.Map;
import java.util.TreeMap;

/**
 * The canonical encoding that receipt digests are computed over: JSON objects with keys sorted by
 * code point, no whitespace, integers in plain decimal, and {@code null} written out (a missing
 * cost cap and a cap of 0 must not hash alike). Only strings, integral numbers, {@code null} and
 * nested objects occur; anything else is a bug.
 */
final class CanonicalJson {
  private CanonicalJson() {}

  /** A mutable, key-sorted object builder. */
  static Obj object() {
    return new Obj();
  }

  static final class Obj {
    private final TreeMap<String, Object> members = new TreeMap<>();

    Obj put(String key, Object value) {
      if (value != null
          && !(value instanceof String)
          && !(value instanceof Long)
          && !(value instanceof Integer)
          && !(value instanceof Obj)) {
        throw new IllegalArgumentException(
            "canonical JSON has no " + value.getClass() + ". Indicates a bug.");
      }
      if (members.put(key, value) != null) {
        throw new IllegalArgumentException("duplicate key " + key + ". Indicates a bug.");
      }
      return this;
    }

    String encode() {
      StringBuilder out = new StringBuilder();
      write(out);
      return out.toString();
    }

    private void write(StringBuilder out) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<String, Object> e : members.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        quote(out, e.getKey());
        out.append(':');
        Object v = e.getValue();
        if (v == null) {
          out.append("null");
        } else if (v instanceof String s) {
          quote(out, s);
        } else if (v instanceof Obj o) {
          o.write(out);
        } else {
          out.append(v);
        }
      }
      out.append('}');
    }
  }

  /**
   * A JSON array of the given strings and integers, spelled canonically (e.g. the input of a
   * store's lock key).
   */
  static String array(Object... items) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < items.length; i++) {
      if (i > 0) {
        out.append(',');
      }
      Object v = items[i];
      if (v instanceof String s) {
        quote(out, s);
      } else if (v instanceof Long || v instanceof Integer) {
        out.append(v);
      } else {
        throw new IllegalArgumentException("canonical JSON array item " + v + ". Indicates a bug.");
      }
    }
    return out.append(']').toString();
  }

  private static void quote(StringBuilder out, String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"') {
        out.append("\\\"");
      } else if (c == '\\') {
        out.append("\\\\");
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }
}
