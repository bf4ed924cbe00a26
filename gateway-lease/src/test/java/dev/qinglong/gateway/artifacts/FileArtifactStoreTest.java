package dev.qinglong.gateway.artifacts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.Sha256Digest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileArtifactStoreTest {
  @TempDir Path dataDir;

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    ThreadLocalRandom.current().nextBytes(b);
    return b;
  }

  @Test
  void storesContentAddressedAndReadsItBackWithItsLength() throws IOException {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 1 << 20);
    byte[] content = randomBytes(200_000);
    Sha256Digest digest = Sha256Digest.of(content);

    assertThat(store.store(digest, new ByteArrayInputStream(content)))
        .isEqualTo(FileArtifactStore.StoreResult.CREATED);

    String hex = digest.value().substring(7);
    assertThat(store.pathOf(digest))
        .isEqualTo(dataDir.resolve("artifacts/sha256").resolve(hex.substring(0, 2)).resolve(hex));
    try (StoredArtifact artifact = store.open(digest).orElseThrow();
        InputStream in = artifact.openRange(0, artifact.length())) {
      assertThat(artifact.length()).isEqualTo(content.length);
      assertThat(in.readAllBytes()).isEqualTo(content);
    }
    assertThat(store.verify(digest)).isTrue();
    assertThat(store.open(Sha256Digest.ofUtf8("absent"))).isEmpty();
    assertThat(store.verify(Sha256Digest.ofUtf8("absent"))).isFalse();
  }

  @Test
  void aRangeReadsExactlyItsBytes() throws IOException {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 1 << 20);
    byte[] content = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    Sha256Digest digest = Sha256Digest.of(content);
    store.store(digest, new ByteArrayInputStream(content));
    try (StoredArtifact artifact = store.open(digest).orElseThrow()) {
      try (InputStream in = artifact.openRange(10, 6)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("abcdef");
      }
      try (InputStream in = artifact.openRange(16, 0)) {
        assertThat(in.read()).isEqualTo(-1);
      }
      assertThatThrownBy(() -> artifact.openRange(10, 7))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void reUploadingTheSameContentIsIdempotent() throws IOException {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 1 << 20);
    byte[] content = randomBytes(10_000);
    Sha256Digest digest = Sha256Digest.of(content);
    store.store(digest, new ByteArrayInputStream(content));
    assertThat(store.store(digest, new ByteArrayInputStream(content)))
        .isEqualTo(FileArtifactStore.StoreResult.ALREADY_PRESENT);
    assertThat(store.verify(digest)).isTrue();
    assertThat(leftoverTempFiles()).isEmpty();
  }

  @Test
  void aDigestMismatchStoresNothing() throws IOException {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 1 << 20);
    Sha256Digest claimed = Sha256Digest.ofUtf8("something else");
    assertThatThrownBy(() -> store.store(claimed, new ByteArrayInputStream(randomBytes(5000))))
        .isInstanceOf(ArtifactDigestMismatchException.class);
    assertThat(store.isPresent(claimed)).isFalse();
    assertThat(leftoverTempFiles()).isEmpty();
  }

  @Test
  void anUploadPastTheCapStopsReadingAndStoresNothing() throws IOException {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 100_000);
    byte[] content = randomBytes(1_000_000);
    Sha256Digest digest = Sha256Digest.of(content);
    CountingStream body = new CountingStream(content);
    assertThatThrownBy(() -> store.store(digest, body))
        .isInstanceOf(ArtifactTooLargeException.class);
    // It stopped within one buffer of the cap instead of draining a huge body.
    assertThat(body.consumed()).isLessThanOrEqualTo(100_000 + 64 * 1024);
    assertThat(store.isPresent(digest)).isFalse();
    assertThat(leftoverTempFiles()).isEmpty();

    byte[] exactlyCap = randomBytes(100_000);
    assertThat(store.store(Sha256Digest.of(exactlyCap), new ByteArrayInputStream(exactlyCap)))
        .isEqualTo(FileArtifactStore.StoreResult.CREATED);
  }

  @Test
  void defaultCapIs256MiB() {
    assertThat(FileArtifactStore.DEFAULT_MAX_BYTES).isEqualTo(256L * 1024 * 1024);
  }

  @Test
  void concurrentUploadsOfOneArtifactAllSucceedWithOneFile() throws Exception {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 1 << 22);
    byte[] content = randomBytes(1 << 21);
    Sha256Digest digest = Sha256Digest.of(content);
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<FileArtifactStore.StoreResult>> results = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        results.add(pool.submit(() -> store.store(digest, new ByteArrayInputStream(content))));
      }
      for (Future<FileArtifactStore.StoreResult> r : results) {
        assertThat(r.get()).isNotNull();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(store.verify(digest)).isTrue();
    assertThat(leftoverTempFiles()).isEmpty();
  }

  @Test
  void aReaderVerifiesTheStorageIdentityAndNeverCreatesIt() throws IOException {
    assertThatThrownBy(() -> FileArtifactStore.forReader(dataDir, Optional.empty()))
        .isInstanceOf(StorageIdentityException.class)
        .hasMessageContaining("readers never create it");
    assertThat(dataDir.resolve("artifacts")).doesNotExist();

    UUID id = FileArtifactStore.forWriter(dataDir, 1000).storageId();
    assertThat(FileArtifactStore.forWriter(dataDir, 1000).storageId()).isEqualTo(id);
    FileArtifactStore reader = FileArtifactStore.forReader(dataDir, Optional.of(id));
    assertThat(reader.storageId()).isEqualTo(id);
    assertThatThrownBy(() -> reader.store(Sha256Digest.ofUtf8("x"), InputStream.nullInputStream()))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> FileArtifactStore.forReader(dataDir, Optional.of(UUID.randomUUID())))
        .isInstanceOf(StorageIdentityException.class);

    Files.writeString(dataDir.resolve("artifacts/storage-id"), "not-a-uuid");
    assertThatThrownBy(() -> FileArtifactStore.forReader(dataDir, Optional.empty()))
        .isInstanceOf(StorageIdentityException.class);
  }

  @Test
  void concurrentWritersAgreeOnOneIdentity() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<UUID>> ids = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        ids.add(pool.submit(() -> FileArtifactStore.forWriter(dataDir, 1000).storageId()));
      }
      UUID first = ids.get(0).get();
      for (Future<UUID> id : ids) {
        assertThat(id.get()).isEqualTo(first);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private List<Path> leftoverTempFiles() throws IOException {
    try (Stream<Path> files = Files.walk(dataDir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
    }
  }

  /** Tells how far the store read. */
  private static final class CountingStream extends ByteArrayInputStream {
    CountingStream(byte[] bytes) {
      super(bytes);
    }

    synchronized int consumed() {
      return pos;
    }
  }

  @Test
  void cleanUpDeletesOnlyOldUnreferencedArtifactsAndAbandonedTempFiles() throws IOException {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 1 << 20);
    Instant now = Instant.now();
    Instant old = now.minus(Duration.ofDays(2));
    Sha256Digest unreferenced = stored(store, "unreferenced", old);
    Sha256Digest referenced = stored(store, "referenced", old);
    Sha256Digest fresh = stored(store, "fresh", now);
    Sha256Digest renewed = stored(store, "renewed", old);
    // A verified re-upload renews the grace period.
    byte[] again = "renewed".getBytes(StandardCharsets.UTF_8);
    assertThat(store.store(renewed, new ByteArrayInputStream(again)))
        .isEqualTo(FileArtifactStore.StoreResult.ALREADY_PRESENT);
    Path dir = store.pathOf(unreferenced).getParent();
    Path abandoned = dir.resolve(".upload-" + UUID.randomUUID() + ".tmp");
    Files.write(abandoned, new byte[] {1});
    Files.setLastModifiedTime(abandoned, FileTime.from(old));
    Path inFlight = dir.resolve(".upload-" + UUID.randomUUID() + ".tmp");
    Files.write(inFlight, new byte[] {2});
    Path stranger = dir.resolve("not-an-artifact");
    Files.write(stranger, new byte[] {3});
    Files.setLastModifiedTime(stranger, FileTime.from(old));

    List<Sha256Digest> asked = new ArrayList<>();
    int deleted =
        store.deleteUnreferenced(
            now.minus(Duration.ofDays(1)),
            d -> {
              asked.add(d);
              return d.equals(referenced);
            });

    assertThat(deleted).isEqualTo(1);
    assertThat(store.isPresent(unreferenced)).isFalse();
    assertThat(store.isPresent(referenced)).isTrue();
    assertThat(store.isPresent(fresh)).isTrue();
    assertThat(store.isPresent(renewed)).isTrue();
    // Only old candidates are looked up; temp files and unknown names are not artifacts.
    assertThat(asked).containsExactlyInAnyOrder(unreferenced, referenced);
    assertThat(abandoned).doesNotExist();
    assertThat(inFlight).exists();
    assertThat(stranger).exists();
    assertThat(dataDir.resolve("artifacts/storage-id")).exists();
    // Once their grace is over the others go too; a second sweep finds nothing more.
    Instant later = Instant.now().plusSeconds(60);
    assertThat(store.deleteUnreferenced(later, d -> d.equals(referenced))).isEqualTo(2);
    assertThat(store.isPresent(fresh)).isFalse();
    assertThat(store.isPresent(renewed)).isFalse();
    assertThat(inFlight).doesNotExist();
    assertThat(store.deleteUnreferenced(later, d -> d.equals(referenced))).isZero();
    assertThat(store.isPresent(referenced)).isTrue();
  }

  @Test
  void cleanUpStopsWhenTheReferenceCheckFailsAndAReaderDeletesNothing() throws IOException {
    FileArtifactStore store = FileArtifactStore.forWriter(dataDir, 1 << 20);
    Sha256Digest a = stored(store, "a", Instant.now().minus(Duration.ofDays(2)));
    assertThatThrownBy(
            () ->
                store.deleteUnreferenced(
                    Instant.now(),
                    d -> {
                      throw new IllegalStateException("database away");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(store.isPresent(a)).isTrue();
    FileArtifactStore reader = FileArtifactStore.forReader(dataDir, Optional.empty());
    assertThatThrownBy(() -> reader.deleteUnreferenced(Instant.now(), d -> false))
        .isInstanceOf(IllegalStateException.class);
    assertThat(store.isPresent(a)).isTrue();
  }

  private static Sha256Digest stored(FileArtifactStore store, String text, Instant uploadedAt)
      throws IOException {
    byte[] content = text.getBytes(StandardCharsets.UTF_8);
    Sha256Digest digest = Sha256Digest.of(content);
    store.store(digest, new ByteArrayInputStream(content));
    Files.setLastModifiedTime(store.pathOf(digest), FileTime.from(uploadedAt));
    return digest;
  }
}
