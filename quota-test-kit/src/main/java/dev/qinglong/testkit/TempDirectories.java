package dev.qinglong.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Removes a scratch directory with whatever was left in it (data directories, WAL, lock files). */
public final class TempDirectories {
  private static final Logger log = LoggerFactory.getLogger(TempDirectories.class);

  private TempDirectories() {}

  /** Deletes {@code dir} and everything below it; nothing if it is null or absent. */
  public static void delete(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** {@link #delete}, logging a failure instead of throwing it: for clean-up that must go on. */
  public static void deleteQuietly(Path dir) {
    try {
      delete(dir);
    } catch (IOException e) {
      log.warn("Cannot delete {}", dir, e);
    }
  }
}
