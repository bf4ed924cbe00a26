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
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  /**
   * The highest version among migration file names {@code V<n>__….sql}. Flyway tolerates gaps in
   * the numbering, so the required version is the highest one, not the number of files.
   */
  public static int highestVersion(Map<String, String> byFileName) {
    int highest = 0;
    for (String name : byFileName.keySet()) {
      Matcher m = VERSIONED.matcher(name);
      if (!m.matches()) {
        throw new IllegalArgumentException("not a versioned migration: " + name);
      }
      highest = Math.max(highest, Integer.parseInt(m.group(1)));
    }
    return highest;
  }

  private static final Pattern VERSIONED = Pattern.compile("V([0-9]+)__.+\\.sql");
}
