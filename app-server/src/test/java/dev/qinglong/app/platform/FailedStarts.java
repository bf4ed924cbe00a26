package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;

/**
 * What a user sees when the app cannot start: exactly one Spring Boot "APPLICATION FAILED TO START"
 * report whose Description and Action say what is wrong and what to change, and no stack trace
 * anywhere in the output (neither {@code at …} frames nor {@code …Exception:} / {@code Caused by:}
 * lines, from any logger).
 */
final class FailedStarts {
  static final String BANNER = "APPLICATION FAILED TO START";
  private static final Pattern FRAME = Pattern.compile("^\\s+at .*");

  private FailedStarts() {}

  /** The report's Description section. */
  static String description(String output) {
    String report = report(output);
    return report
        .substring(
            report.indexOf("Description:") + "Description:".length(), report.indexOf("Action:"))
        .trim();
  }

  /** The report's Action section. */
  static String action(String output) {
    String report = report(output);
    return report.substring(report.indexOf("Action:") + "Action:".length()).trim();
  }

  private static String report(String output) {
    int at = output.indexOf(BANNER);
    assertThat(at).as("a failure report in:%n%s", output).isNotNegative();
    return output.substring(at);
  }

  /** One report and no line of a stack trace. */
  static void assertOneReportAndNoStackTrace(String output) {
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
