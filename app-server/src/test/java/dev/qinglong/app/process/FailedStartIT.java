package dev.qinglong.app.process;

import static dev.qinglong.app.platform.FailedStarts.action;
import static dev.qinglong.app.platform.FailedStarts.description;
import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.platform.FailedStarts;
import dev.qinglong.testkit.AppProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Failed starts as a user sees them (docs/operations.md#when-it-does-not-start): the packaged app
 * started with {@code java -jar}, its whole console output read back. Each exits non-zero after one
 * "APPLICATION FAILED TO START" report, with no line of a stack trace from any logger (the
 * application context, Tomcat, Hikari, Flyway), and in the JSON log format one JSON object a line
 * with the report one of them and no exception in any. The four processes start side by side, so
 * the suite pays for about one start; the other cases run in this JVM ({@code FailedStartTest}).
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
    // What a cluster's log pipeline reads: every line one JSON object, the exceptions of Hikari and
    // the context in no member of any of them.
    Map<String, String> json = new LinkedHashMap<>(cases.get("unreachable"));
    json.put("qinglong.log-format", "json");
    cases.put("unreachable-json", json);
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
              "unreachable", "(qinglong.postgres.url) cannot be reached",
              "unreachable-json", "(qinglong.postgres.url) cannot be reached");
      for (var e : started.entrySet()) {
        AppProcess app = e.getValue();
        assertThat(app.awaitExit(EXIT)).as(e.getKey()).isNotZero();
        String out = app.output();
        FailedStarts.assertOneReportAndNoStackTrace(out);
        if (e.getKey().endsWith("-json")) {
          out = jsonReport(out);
        }
        assertThat(description(out)).as(out).contains(expected.get(e.getKey()));
        assertThat(action(out)).as(out).isNotBlank();
      }
    } finally {
      for (AppProcess app : started.values()) {
        app.close();
      }
    }
  }

  /**
   * Checks that every line of {@code out} is a JSON object, that none carries an exception, and
   * that exactly one, at ERROR, is the failure report; returns that report's text.
   */
  private static String jsonReport(String out) {
    ObjectMapper mapper = new ObjectMapper();
    List<JsonNode> lines = out.lines().filter(l -> !l.isBlank()).map(mapper::readTree).toList();
    assertThat(lines).as(out).isNotEmpty().allMatch(JsonNode::isObject);
    assertThat(lines)
        .as("an exception member in:%n%s", out)
        .noneMatch(l -> l.has("error") || l.toString().contains("stack_trace"));
    List<JsonNode> reports =
        lines.stream()
            .filter(l -> l.path("message").asString("").contains("APPLICATION FAILED TO START"))
            .toList();
    assertThat(reports).as(out).hasSize(1);
    assertThat(reports.get(0).path("log").path("level").asString("")).isEqualTo("ERROR");
    return reports.get(0).path("message").asString("");
  }
}
