package dev.qinglong.app.http;

import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Audit events on the logger {@value #LOGGER}: one INFO line per governance action, member change,
 * publication and quota refusal. Each field is an SLF4J key-value pair (a member of its own in the
 * structured JSON logs, {@code logging.structured.format.console=ecs}) and is repeated in the
 * message as {@code key=value}, so text logs carry it too; the request id comes from the MDC like
 * on every line. Values are identifiers the API has already validated, or fixed words; a value from
 * elsewhere (a JWT subject) has its control characters replaced, so no line can be forged.
 */
public final class AuditLog {
  public static final String LOGGER = "qinglong.audit";
  private static final Logger log = LoggerFactory.getLogger(LOGGER);

  private AuditLog() {}

  /** Starts an event named {@code event}, e.g. {@code governance.proposed}. */
  public static Event event(String event) {
    return new Event(event);
  }

  /** One audit event under construction. */
  public static final class Event {
    private final Map<String, String> fields = new LinkedHashMap<>();

    private Event(String event) {
      fields.put("auditEvent", event);
    }

    public Event with(String key, Object value) {
      fields.put(key, value == null ? "-" : clean(String.valueOf(value)));
      return this;
    }

    public void log() {
      StringBuilder message = new StringBuilder("audit");
      LoggingEventBuilder builder = log.atInfo();
      fields.forEach(
          (k, v) -> {
            message.append(' ').append(k).append('=').append(v);
            builder.addKeyValue(k, v);
          });
      builder.log(message.toString());
    }
  }

  static String clean(String value) {
    StringBuilder out = new StringBuilder(Math.min(value.length(), 256));
    for (int i = 0; i < value.length() && i < 256; i++) {
      char c = value.charAt(i);
      out.append(Character.isISOControl(c) || c == ' ' ? '_' : c);
    }
    return out.toString();
  }
}
