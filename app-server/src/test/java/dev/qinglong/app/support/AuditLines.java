package dev.qinglong.app.support;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.qinglong.app.http.AuditLog;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * The audit lines ({@link AuditLog#LOGGER}) written during each test, kept in memory by a Logback
 * {@link ListAppender}: register with {@code @RegisterExtension}.
 */
public final class AuditLines implements BeforeEachCallback, AfterEachCallback {
  private final Logger audit = (Logger) LoggerFactory.getLogger(AuditLog.LOGGER);
  private ListAppender<ILoggingEvent> lines;

  @Override
  public void beforeEach(ExtensionContext context) {
    lines = new ListAppender<>();
    lines.start();
    audit.addAppender(lines);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    audit.detachAppender(lines);
  }

  /** The lines so far, in order. */
  public List<ILoggingEvent> events() {
    return List.copyOf(lines.list);
  }

  /** The lines so far as their key-value fields. */
  public List<Map<String, String>> fields() {
    return events().stream()
        .map(
            e ->
                e.getKeyValuePairs().stream()
                    .collect(Collectors.toMap(kv -> kv.key, kv -> String.valueOf(kv.value))))
        .toList();
  }
}
