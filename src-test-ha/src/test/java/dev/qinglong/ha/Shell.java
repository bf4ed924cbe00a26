package dev.qinglong.ha;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs server tools to completion, as the {@code postgres} OS user when the JVM is root (initdb and
 * pg_ctl refuse to run as root). Output goes to a file, not a pipe: {@code pg_ctl start} leaves a
 * server behind that would otherwise inherit the pipe and keep the reader waiting.
 */
final class Shell {
  static final String SERVER_USER = "postgres";
  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  private final Path workDir;
  private final boolean root;

  Shell(Path workDir) {
    this.workDir = workDir;
    this.root = runningAsRoot();
  }

  boolean asRoot() {
    return root;
  }

  record Result(int exitCode, String output) {}

  /** Runs {@code command} as the server user; throws unless it exits 0. */
  String check(List<String> command) {
    Result r = run(command, true);
    if (r.exitCode() != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " failed (exit " + r.exitCode() + "):\n" + tail(r.output()));
    }
    return r.output();
  }

  Result run(List<String> command, boolean asServerUser) {
    List<String> full = new ArrayList<>();
    if (asServerUser && root) {
      full.addAll(List.of(runuser(), "-u", SERVER_USER, "--"));
    }
    full.addAll(command);
    Path out = null;
    try {
      out = Files.createTempFile("qinglong-ha-cmd-", ".out");
      Process p =
          new ProcessBuilder(full)
              .directory(workDir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("timed out: " + String.join(" ", full));
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + String.join(" ", full) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", full), e);
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException ignored) {
          // A stray temp file is not worth failing the gate for.
        }
      }
    }
  }

  static String tail(String text) {
    List<String> lines = text.lines().collect(Collectors.toList());
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
  }

  static String quote(String arg) {
    return "'" + arg.replace("'", "'\\''") + "'";
  }

  private static String runuser() {
    for (String candidate : List.of("/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    return "runuser";
  }

  private static boolean runningAsRoot() {
    try {
      Process p = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
      String uid = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor(10, TimeUnit.SECONDS) && "0".equals(uid);
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
