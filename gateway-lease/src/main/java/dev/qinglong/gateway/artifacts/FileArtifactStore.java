package dev.qinglong.gateway.artifacts;

import dev.qinglong.core.kernel.OwnerOnlyFiles;
import dev.qinglong.core.kernel.Sha256Digest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Content-addressed artifact storage on a file system: {@code <root>/artifacts/sha256/<first two
 * hex>/<64 hex>}. An upload streams into a temp file in the target's own directory while hashing
 * and counting, is refused past the size cap or on a digest mismatch, is forced to disk and then
 * moved atomically into place, so a reader sees either no file or the whole verified file.
 * Uploading the same content again is harmless.
 *
 * <p>What it creates is its owner's only: directories 0700, artifacts 0600.
 *
 * <p>A writer store ({@link #forWriter}) creates the storage identity; a reader store ({@link
 * #forReader}) only verifies it and refuses uploads.
 *
 * <p>Thread-safe; several processes may share one root.
 */
public final class FileArtifactStore {
  /** Default of {@code qinglong.artifacts.max-bytes}: 256 MiB. */
  public static final long DEFAULT_MAX_BYTES = 268_435_456L;

  private static final int BUFFER_BYTES = 64 * 1024;
  private static final Pattern PREFIX = Pattern.compile("[0-9a-f]{2}");
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern TEMP = Pattern.compile("\\.upload-[0-9a-f-]{36}\\.tmp");

  private final Path artifactsDir;
  private final long maxBytes;
  private final boolean writable;
  private final UUID storageId;

  /** Outcome of {@link #store}. */
  public enum StoreResult {
    /** The artifact was written now. */
    CREATED,
    /** The same content was already stored; the upload was verified and discarded. */
    ALREADY_PRESENT
  }

  private FileArtifactStore(Path artifactsDir, long maxBytes, boolean writable, UUID storageId) {
    this.artifactsDir = artifactsDir;
    this.maxBytes = maxBytes;
    this.writable = writable;
    this.storageId = storageId;
  }

  /**
   * A store that accepts uploads, creating {@code <dataDir>/artifacts} and its identity if missing.
   *
   * @param maxBytes the upload cap, at least 1
   * @throws IOException if the directory or identity cannot be created
   */
  public static FileArtifactStore forWriter(Path dataDir, long maxBytes) throws IOException {
    Path dir = artifactsDir(dataDir);
    OwnerOnlyFiles.createDirectories(dir);
    return new FileArtifactStore(dir, checkCap(maxBytes), true, StorageIdentity.createOrRead(dir));
  }

  /**
   * A read-only store over an existing storage root; creates nothing.
   *
   * @param expectedStorageId if present, the identity the root must have
   * @throws StorageIdentityException if the identity is missing, malformed or not the expected one
   * @throws IOException if the identity cannot be read
   */
  public static FileArtifactStore forReader(Path dataDir, Optional<UUID> expectedStorageId)
      throws IOException {
    Path dir = artifactsDir(dataDir);
    UUID id = StorageIdentity.read(dir);
    if (expectedStorageId.isPresent() && !expectedStorageId.get().equals(id)) {
      throw new StorageIdentityException(
          "artifact storage " + dir + " is " + id + ", expected " + expectedStorageId.get());
    }
    return new FileArtifactStore(dir, DEFAULT_MAX_BYTES, false, id);
  }

  /** {@code <dataDir>/artifacts}. */
  public static Path artifactsDir(Path dataDir) {
    return dataDir.resolve("artifacts");
  }

  /** The storage identity. */
  public UUID storageId() {
    return storageId;
  }

  /** The upload cap in bytes. */
  public long maxBytes() {
    return maxBytes;
  }

  /**
   * Streams {@code body} into the store under {@code digest}. Reads {@code body} to its end (or
   * until the cap is passed) but does not close it.
   *
   * @return {@link StoreResult#CREATED}, or {@link StoreResult#ALREADY_PRESENT} for a verified
   *     re-upload of stored content
   * @throws ArtifactTooLargeException past {@link #maxBytes()}; nothing stored, reading stopped
   * @throws ArtifactDigestMismatchException if the bytes hash to another digest; nothing stored
   * @throws IOException if reading the body or writing the file fails; nothing stored
   * @throws IllegalStateException on a reader store
   */
  public StoreResult store(Sha256Digest digest, InputStream body) throws IOException {
    Objects.requireNonNull(digest, "digest");
    Objects.requireNonNull(body, "body");
    if (!writable) {
      throw new IllegalStateException("a reader's artifact store accepts no uploads");
    }
    Path target = pathOf(digest);
    Path dir = target.getParent();
    OwnerOnlyFiles.createDirectories(dir);
    // Same directory as the target: the final move is a rename on one file system.
    Path temp = dir.resolve(".upload-" + UUID.randomUUID() + ".tmp");
    boolean moved = false;
    try {
      MessageDigest sha256 = sha256();
      // Mode 0600 from creation; the stored artifact keeps it through the rename.
      try (FileChannel out =
          OwnerOnlyFiles.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        byte[] buffer = new byte[BUFFER_BYTES];
        long size = 0;
        int n;
        while ((n = body.read(buffer)) != -1) {
          size += n;
          if (size > maxBytes) {
            throw new ArtifactTooLargeException(maxBytes);
          }
          sha256.update(buffer, 0, n);
          ByteBuffer chunk = ByteBuffer.wrap(buffer, 0, n);
          while (chunk.hasRemaining()) {
            out.write(chunk);
          }
        }
        if (!hex(sha256.digest()).equals(hexOf(digest))) {
          throw new ArtifactDigestMismatchException();
        }
        out.force(true);
      }
      if (Files.exists(target)) {
        // A re-upload renews the artifact's grace period against the unreferenced clean-up.
        touch(target);
        return StoreResult.ALREADY_PRESENT;
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("the artifact store needs atomic renames: " + dir, e);
      }
      moved = true;
      forceDirectory(dir);
      // A concurrent identical upload may have renamed over us: same verified bytes, same result.
      return StoreResult.CREATED;
    } finally {
      if (!moved) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /**
   * Opens a stored artifact for reading.
   *
   * @return the open artifact, or empty if it is not stored
   * @throws IOException if it exists but cannot be opened
   */
  public Optional<StoredArtifact> open(Sha256Digest digest) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(pathOf(digest), StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    try {
      return Optional.of(new StoredArtifact(digest, channel, channel.size()));
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** Whether an artifact is stored under {@code digest} (not re-verified). */
  public boolean isPresent(Sha256Digest digest) {
    return Files.isRegularFile(pathOf(digest));
  }

  /**
   * Re-hashes a stored artifact, for the publication worker's "present and verified" check.
   *
   * @return {@code true} if it is stored and its bytes hash to {@code digest}
   * @throws IOException if it exists but cannot be read
   */
  public boolean verify(Sha256Digest digest) throws IOException {
    Optional<StoredArtifact> opened = open(digest);
    if (opened.isEmpty()) {
      return false;
    }
    try (StoredArtifact artifact = opened.get();
        InputStream in = artifact.openRange(0, artifact.length())) {
      MessageDigest sha256 = sha256();
      byte[] buffer = new byte[BUFFER_BYTES];
      int n;
      while ((n = in.read(buffer)) != -1) {
        sha256.update(buffer, 0, n);
      }
      return hex(sha256.digest()).equals(hexOf(digest));
    }
  }

  /**
   * Deletes stored artifacts that were last uploaded before {@code uploadedBefore} and that {@code
   * referenced} answers {@code false} for, and abandoned upload temp files older than that. A
   * stored artifact's age is its file's modification time: the first upload, renewed by every
   * verified re-upload.
   *
   * <p>Safe to run while uploads go on: each candidate's time is read again right before it is
   * deleted, so an artifact re-uploaded meanwhile stays. An artifact that a proposal starts to name
   * between the check and the deletion (possible only if it was unreferenced for the whole grace
   * period and not uploaded again) is simply missing: the publication worker leaves that proposal
   * approved until the artifact is uploaded again. Files that are not artifacts (the storage
   * identity, unknown names) are never touched.
   *
   * @param uploadedBefore only artifacts last uploaded strictly before this instant are candidates
   * @param referenced whether some proposal names the digest; {@code true} keeps it. An exception
   *     stops the sweep and propagates (what was deleted so far stays deleted)
   * @return how many artifacts were deleted (temp files are not counted)
   * @throws IOException if the storage cannot be listed or a file cannot be deleted
   * @throws IllegalStateException on a reader store
   */
  public int deleteUnreferenced(Instant uploadedBefore, Predicate<Sha256Digest> referenced)
      throws IOException {
    Objects.requireNonNull(uploadedBefore, "uploadedBefore");
    Objects.requireNonNull(referenced, "referenced");
    if (!writable) {
      throw new IllegalStateException("a reader's artifact store deletes nothing");
    }
    Path root = artifactsDir.resolve("sha256");
    if (!Files.isDirectory(root)) {
      return 0;
    }
    int deleted = 0;
    List<Path> prefixes;
    try (Stream<Path> listed = Files.list(root)) {
      prefixes = listed.filter(p -> PREFIX.matcher(name(p)).matches()).sorted().toList();
    }
    for (Path prefix : prefixes) {
      List<Path> files;
      try (Stream<Path> listed = Files.list(prefix)) {
        files = listed.sorted().toList();
      }
      for (Path file : files) {
        String name = name(file);
        if (TEMP.matcher(name).matches()) {
          if (olderThan(file, uploadedBefore)) {
            Files.deleteIfExists(file);
          }
          continue;
        }
        if (!HEX64.matcher(name).matches()
            || !name.startsWith(name(prefix))
            || !olderThan(file, uploadedBefore)) {
          continue;
        }
        Sha256Digest digest = new Sha256Digest("sha256:" + name);
        if (!referenced.test(digest) && olderThan(file, uploadedBefore)) {
          if (Files.deleteIfExists(file)) {
            deleted++;
          }
        }
      }
    }
    return deleted;
  }

  private static boolean olderThan(Path file, Instant instant) throws IOException {
    try {
      return Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS)
              .toInstant()
              .isBefore(instant)
          && Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  private static void touch(Path file) {
    try {
      Files.setLastModifiedTime(file, FileTime.from(Instant.now()));
    } catch (IOException e) {
      // Best effort (deleted meanwhile, or a file of another owner on shared storage): at worst the
      // clean-up removes it after its first upload's grace, and a proposal naming it waits,
      // approved,
      // for the next upload.
    }
  }

  private static String name(Path p) {
    return p.getFileName().toString();
  }

  /** Where {@code digest} is stored (whether or not it exists). */
  public Path pathOf(Sha256Digest digest) {
    String hex = hexOf(digest);
    return artifactsDir.resolve("sha256").resolve(hex.substring(0, 2)).resolve(hex);
  }

  private static String hexOf(Sha256Digest digest) {
    // The digest's grammar is sha256:[0-9a-f]{64}, so the path cannot escape the root.
    return digest.value().substring("sha256:".length());
  }

  private static void forceDirectory(Path dir) {
    // Makes the rename durable on Linux; some platforms cannot open directories, which is fine.
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // Best effort only.
    }
  }

  private static long checkCap(long maxBytes) {
    if (maxBytes < 1) {
      throw new IllegalArgumentException("qinglong.artifacts.max-bytes must be >= 1");
    }
    return maxBytes;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
    }
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
