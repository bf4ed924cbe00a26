package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.boot.test.system.CapturedOutput;

/**
 * What a user sees when the app cannot start: exactly one Spring Boot "APPLICATION FAILED TO START"
 * report whose Description and Action say what is wrong and what to change, and no stack trace
 * anywhere in the output (neither {@code at …} frames nor {@code …Exception:} / {@code Caused by:}
 * lines, from any logger).
 */
public final class FailedStarts {
  static final String BANNER = "APPLICATION FAILED TO START";
  private static final Pattern FRAME = Pattern.compile("^\\s+at .*");

  private FailedStarts() {}

  /**
   * Starts the app in this JVM ({@link TestApp}) with {@code properties}, which must fail, and
   * returns what the start printed, checked to hold one report and no stack trace.
   */
  static String failedStart(CapturedOutput output, Path dataDir, Map<String, String> properties) {
    int before = output.getAll().length();
    assertThatThrownBy(() -> TestApp.start(dataDir, properties).close())
        .as("the start fails")
        .isNotNull();
    String out = output.getAll().substring(before);
    assertOneReportAndNoStackTrace(out);
    return out;
  }

  /** The report's Description section. */
  public static String description(String output) {
    String report = report(output);
    return report
        .substring(
            report.indexOf("Description:") + "Description:".length(), report.indexOf("Action:"))
        .trim();
  }

  /** The report's Action section. */
  public static String action(String output) {
    String report = report(output);
    return report.substring(report.indexOf("Action:") + "Action:".length()).trim();
  }

  private static String report(String output) {
    int at = output.indexOf(BANNER);
    assertThat(at).as("a failure report in:%n%s", output).isNotNegative();
    return output.substring(at);
  }

  /** One report and no line of a stack trace. */
  public static void assertOneReportAndNoStackTrace(String output) {
    assertThat(output.split(BANNER, -1)).as("one report in:%n%s", output).hasSize(2);
    List<String> traceLines =
        output
            .lines()
            .filter(
                l ->
                    FRAME.matcher(l).matches()
                        || l.contains("Exception:")
                        || l.startsWith("Caused by:"))
            .toList();
    assertThat(traceLines).as("stack trace lines in:%n%s", output).isEmpty();
  }
}
