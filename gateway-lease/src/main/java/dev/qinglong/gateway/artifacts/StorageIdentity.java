package dev.qinglong.gateway.artifacts;

import dev.qinglong.core.kernel.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The identity of an artifact storage root: a random UUID in {@code <artifacts>/storage-id}.
 * Writers create it once; readers only read and verify it, so a reader pointed at an empty or wrong
 * volume refuses to start instead of serving from it.
 */
public final class StorageIdentity {
  /** File name inside the artifacts directory. */
  public static final String FILE_NAME = "storage-id";

  private StorageIdentity() {}

  /**
   * Returns the identity of {@code artifactsDir}, creating the directory and the identity if
   * missing. Safe when several writers start at once: exactly one identity wins.
   *
   * @throws StorageIdentityException if an existing identity file is malformed
   * @throws IOException if the file system fails
   */
  public static UUID createOrRead(Path artifactsDir) throws IOException {
    OwnerOnlyFiles.createDirectories(artifactsDir);
    Path file = artifactsDir.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      Path temp = artifactsDir.resolve(".storage-id-" + UUID.randomUUID() + ".tmp");
      OwnerOnlyFiles.createFile(temp);
      try {
        Files.writeString(temp, UUID.randomUUID() + "\n", StandardCharsets.US_ASCII);
        // A hard link fails if the name exists, so a concurrent writer's identity is never
        // replaced, and readers never see a half-written file.
        Files.createLink(file, temp);
      } catch (FileAlreadyExistsException raced) {
        // Another writer won; read theirs below.
      } finally {
        Files.deleteIfExists(temp);
      }
    }
    return read(artifactsDir);
  }

  /**
   * Reads the identity of {@code artifactsDir}; never creates anything.
   *
   * @throws StorageIdentityException if the directory or the identity is missing or malformed
   * @throws IOException if the file system fails otherwise
   */
  public static UUID read(Path artifactsDir) throws IOException {
    Path file = artifactsDir.resolve(FILE_NAME);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII).trim();
    } catch (NoSuchFileException e) {
      throw new StorageIdentityException(
          "artifact storage "
              + artifactsDir
              + " has no "
              + FILE_NAME
              + ": start a writer on it first (readers never create it), or fix the mount",
          e);
    }
    try {
      return UUID.fromString(text);
    } catch (IllegalArgumentException e) {
      throw new StorageIdentityException("artifact storage " + file + " is not a UUID", e);
    }
  }
}
