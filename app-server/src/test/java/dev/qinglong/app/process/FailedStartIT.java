package dev.qinglong.app.process;

import static dev.qinglong.app.platform.FailedStarts.action;
import static dev.qinglong.app.platform.FailedStarts.description;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.platform.FailedStarts;
import dev.qinglong.testkit.AppProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failed starts as a user sees them (docs/operations.md#when-it-does-not-start): the packaged app
 * started with {@code java -jar}, its whole console output read back. Each exits non-zero after one
 * "APPLICATION FAILED TO START" report, with no line of a stack trace from any logger (the
 * application context, Tomcat, Hikari, Flyway). The three processes start side by side, so the
 * suite pays for about one start; the other cases run in this JVM ({@code FailedStartTest}).
 */
class FailedStartIT {
  private static final Duration EXIT = Duration.ofSeconds(120);
  private static final Path LOGS = Path.of("target", "process-logs", "failed-start");

  @Test
  void eachFailedStartExitsNonZeroWithOneReportAndNoStackTrace(@TempDir Path dir) throws Exception {
    int closed = AppProcess.freePort(); // nothing listens there
    Map<String, Map<String, String>> cases = new LinkedHashMap<>();
    cases.put("unknown-store", Map.of("qinglong.store", "postgresql"));
    cases.put("window", Map.of("qinglong.management-quota.window", "10m"));
    cases.put(
        "unreachable",
        Map.of(
            "qinglong.store", "postgres",
            "qinglong.postgres.url", "jdbc:postgresql://127.0.0.1:" + closed + "/qinglong",
            "qinglong.postgres.username", "qinglong_owner"));
    Map<String, AppProcess> started = new LinkedHashMap<>();
    try {
      for (var c : cases.entrySet()) {
        Map<String, String> p = new LinkedHashMap<>(c.getValue());
        p.put("qinglong.data-dir", dir.resolve(c.getKey()).toString());
        started.put(c.getKey(), AppProcess.start(c.getKey(), LOGS, p));
      }
      Map<String, String> expected =
          Map.of(
              "unknown-store", "valid values: sqlite, postgres",
              "window", "qinglong.management-quota.window=10m",
              "unreachable", "(qinglong.postgres.url) cannot be reached");
      for (var e : started.entrySet()) {
        AppProcess app = e.getValue();
        assertThat(app.awaitExit(EXIT)).as(e.getKey()).isNotZero();
        String out = app.output();
        FailedStarts.assertOneReportAndNoStackTrace(out);
        assertThat(description(out)).as(out).contains(expected.get(e.getKey()));
        assertThat(action(out)).as(out).isNotBlank();
      }
    } finally {
      for (AppProcess app : started.values()) {
        app.close();
      }
    }
  }
}
