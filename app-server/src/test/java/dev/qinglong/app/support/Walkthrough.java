package dev.qinglong.app.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the walk-through of a markdown page as a reader would paste it: every {@code ```bash} block
 * directly preceded by a line {@code <!-- walkthrough -->}, in page order, in one bash process with
 * {@code set -euo pipefail}, with the system's own curl. The only change to the text is the port of
 * {@code http://127.0.0.1:8080}, which becomes the test app's.
 *
 * <pre>{@code
 * TestApp app = TestApp.start(tmp.resolve("data"), Map.of(...));   // writes data/dev-tokens.properties
 * Walkthrough.Result r = Walkthrough.run(Path.of("..", "docs", "model-quota.md"), tmp, app.http.port());
 * assertThat(r.exitCode()).as(r.output()).isZero();
 * }</pre>
 */
public final class Walkthrough {
  /** The line that marks the next {@code ```bash} block as part of the walk-through. */
  public static final String MARK = "<!-- walkthrough -->";

  /** The address the pages use, whose port is replaced. */
  public static final String ADDRESS = "http://127.0.0.1:8080";

  private Walkthrough() {}

  /**
   * What bash did: its exit code, its standard output and error interleaved as printed, and the
   * script it ran (the marked blocks after the port replacement).
   */
  public record Result(int exitCode, String output, String script) {}

  /**
   * The marked blocks of {@code markdown}, in order, each without its fences.
   *
   * @throws IllegalStateException if the page has no marked block, a mark is not directly followed
   *     by a {@code ```bash} fence, or a marked block is not closed
   */
  public static List<String> blocks(Path markdown) {
    List<String> lines = read(markdown);
    List<String> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).strip().equals(MARK)) {
        continue;
      }
      if (i + 1 >= lines.size() || !lines.get(i + 1).strip().equals("```bash")) {
        throw new IllegalStateException(
            markdown
                + " line "
                + (i + 1)
                + ": "
                + MARK
                + " is not directly before a ```bash fence");
      }
      StringBuilder block = new StringBuilder();
      int j = i + 2;
      while (j < lines.size() && !lines.get(j).strip().equals("```")) {
        block.append(lines.get(j)).append('\n');
        j++;
      }
      if (j >= lines.size()) {
        throw new IllegalStateException(
            markdown + " line " + (i + 2) + ": the marked ```bash block is not closed");
      }
      blocks.add(block.toString());
      i = j;
    }
    if (blocks.isEmpty()) {
      throw new IllegalStateException(markdown + " has no block marked " + MARK);
    }
    return blocks;
  }

  /**
   * Runs the marked blocks of {@code markdown} in one {@code bash} whose working directory is
   * {@code workDir} (where the page expects {@code data/dev-tokens.properties}), against {@code
   * http://127.0.0.1:<port>}. Proxy variables are dropped from bash's environment (loopback is
   * never proxied). Waits for bash to end.
   */
  public static Result run(Path markdown, Path workDir, int port) {
    String script =
        "set -euo pipefail\n"
            + String.join("", blocks(markdown)).replace(ADDRESS, "http://127.0.0.1:" + port);
    ProcessBuilder builder =
        new ProcessBuilder("bash", "-c", script)
            .directory(workDir.toFile())
            .redirectErrorStream(true);
    Map<String, String> env = builder.environment();
    for (String proxy :
        List.of(
            "http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")) {
      env.remove(proxy);
    }
    env.put("NO_PROXY", "127.0.0.1,localhost");
    env.put("no_proxy", "127.0.0.1,localhost");
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      // Output ends when bash does; the bound only keeps a wedged child from outliving the test.
      if (!process.waitFor(5, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new IllegalStateException("bash did not end after closing its output:\n" + output);
      }
      return new Result(process.exitValue(), output, script);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run bash for " + markdown, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + markdown, e);
    }
  }

  private static List<String> read(Path markdown) {
    try {
      return Files.readAllLines(markdown, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + markdown, e);
    }
  }
}
