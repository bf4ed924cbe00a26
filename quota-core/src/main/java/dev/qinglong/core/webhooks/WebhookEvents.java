package dev.qinglong.core.webhooks;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Event ids and bodies. A body is {@code {"type":…,"timestamp":…,"data":{…}}}; data carries ids,
 * digests and numbers of the event's own Project, never a token or a secret. Bodies are built once,
 * when the event is written, and sent byte for byte on every attempt (the signature covers them).
 */
public final class WebhookEvents {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private WebhookEvents() {}

  /** A new event id: {@code msg_} + 16 random bytes, base64url without padding. */
  public static String newDeliveryId() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    return "msg_" + Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** A builder of an event's data members, in insertion order. */
  public static Data data() {
    return new Data();
  }

  /** The body of an event of {@code type} at {@code atMs} with {@code data}. */
  public static String payload(WebhookEventType type, long atMs, Data data) {
    StringBuilder out = new StringBuilder(128);
    out.append("{\"type\":");
    quote(out, type.wireName());
    out.append(",\"timestamp\":");
    quote(out, ISO.format(Instant.ofEpochMilli(atMs)));
    out.append(",\"data\":");
    data.write(out);
    return out.append('}').toString();
  }

  /** Data members: strings, integral numbers, booleans or null. */
  public static final class Data {
    private final Map<String, Object> members = new LinkedHashMap<>();

    private Data() {}

    public Data put(String key, String value) {
      members.put(key, value);
      return this;
    }

    public Data put(String key, long value) {
      members.put(key, value);
      return this;
    }

    public Data put(String key, boolean value) {
      members.put(key, value);
      return this;
    }

    /** A number written as given (e.g. a threshold fraction). */
    public Data put(String key, java.math.BigDecimal value) {
      members.put(key, value);
      return this;
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
        } else if (v instanceof java.math.BigDecimal d) {
          out.append(d.toPlainString());
        } else {
          out.append(v);
        }
      }
      out.append('}');
    }
  }

  private static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
