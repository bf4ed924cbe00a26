package dev.qinglong.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * SHA-256 of every migration file in a classpath directory, by file name. Tests pin these values so
 * that a released migration can never be edited silently (Flyway would then refuse to start on
 * every database that already applied it).
 */
public final class MigrationChecksums {
  private MigrationChecksums() {}

  /**
   * @param directory a classpath directory such as {@code db/postgres}, served from the file system
   *     (the module's own target/classes)
   */
  public static SortedMap<String, String> sha256(String directory) {
    URL url = MigrationChecksums.class.getClassLoader().getResource(directory);
    if (url == null || !"file".equals(url.getProtocol())) {
      throw new IllegalStateException("no migration directory on the file system: " + directory);
    }
    SortedMap<String, String> checksums = new TreeMap<>();
    try (Stream<Path> files = Files.list(Path.of(url.toURI()))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".sql")).toList()) {
        byte[] hash = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        checksums.put(file.getFileName().toString(), HexFormat.of().formatHex(hash));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException | NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    return checksums;
  }
}
