package dev.qinglong.ha;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The PostgreSQL server binaries the gate needs, all from one directory so their versions match:
 * {@code $QINGLONG_TEST_PG_BIN}, else {@code pg_config --bindir}, else PATH, else the highest
 * {@code /usr/lib/postgresql/<version>/bin} (Debian keeps the server tools off PATH).
 */
record PgBinaries(Path dir) {
  static final String BIN_ENV = "QINGLONG_TEST_PG_BIN";
  static final List<String> REQUIRED =
      List.of("initdb", "pg_ctl", "pg_basebackup", "pg_rewind", "postgres");

  Path tool(String name) {
    return dir.resolve(name);
  }

  static PgBinaries locate() {
    String override = System.getenv(BIN_ENV);
    if (override != null && !override.isBlank()) {
      Path dir = Path.of(override.trim());
      if (!complete(dir)) {
        throw new IllegalStateException(BIN_ENV + "=" + dir + " lacks one of " + REQUIRED);
      }
      return new PgBinaries(dir);
    }
    List<Path> candidates = new ArrayList<>();
    pgConfigBindir().ifPresent(candidates::add);
    String path = System.getenv("PATH");
    if (path != null) {
      for (String entry : path.split(File.pathSeparator)) {
        if (!entry.isEmpty()) {
          candidates.add(Path.of(entry));
        }
      }
    }
    candidates.addAll(debianBinDirs());
    for (Path dir : candidates) {
      if (complete(dir)) {
        return new PgBinaries(dir);
      }
    }
    throw new IllegalStateException(
        "No directory holds all of "
            + REQUIRED
            + " (looked at pg_config --bindir, PATH and /usr/lib/postgresql/*/bin); set "
            + BIN_ENV);
  }

  private static boolean complete(Path dir) {
    return REQUIRED.stream().allMatch(n -> Files.isExecutable(dir.resolve(n)));
  }

  private static Optional<Path> pgConfigBindir() {
    try {
      Process p = new ProcessBuilder("pg_config", "--bindir").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !out.isEmpty()) {
        return Optional.of(Path.of(out));
      }
    } catch (IOException e) {
      // No pg_config on PATH: fall through to the other places.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Optional.empty();
  }

  private static List<Path> debianBinDirs() {
    Path root = Path.of("/usr/lib/postgresql");
    List<Path> dirs = new ArrayList<>();
    if (Files.isDirectory(root)) {
      try (DirectoryStream<Path> versions = Files.newDirectoryStream(root)) {
        versions.forEach(v -> dirs.add(v.resolve("bin")));
      } catch (IOException e) {
        return List.of();
      }
    }
    dirs.sort(Comparator.comparing((Path d) -> majorVersion(d.getParent())).reversed());
    return dirs;
  }

  private static int majorVersion(Path versionDir) {
    try {
      return Integer.parseInt(versionDir.getFileName().toString().split("\\.")[0]);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
