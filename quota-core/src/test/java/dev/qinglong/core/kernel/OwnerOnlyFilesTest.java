package dev.qinglong.core.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What QingLong writes is created 0600 in 0700 directories, an existing file keeps its mode, and a
 * credential file others may read or write, or a symbolic link, is refused with the remedy. POSIX
 * file systems only (the CI's is).
 */
class OwnerOnlyFilesTest {
  @TempDir Path tmp;

  @BeforeEach
  void posixOnly() {
    assumeTrue(OwnerOnlyFiles.posix(), "file modes need a POSIX file system");
  }

  @Test
  void createsDirectoriesAndFilesForTheOwnerOnly() throws IOException {
    Path dir = tmp.resolve("a/b");
    OwnerOnlyFiles.createDirectories(dir);
    assertThat(mode(dir)).isEqualTo("rwx------");
    assertThat(mode(tmp.resolve("a"))).isEqualTo("rwx------");
    Path file = dir.resolve("secret");
    OwnerOnlyFiles.createFile(file);
    assertThat(mode(file)).isEqualTo("rw-------");
    assertThatThrownBy(() -> OwnerOnlyFiles.createFile(file))
        .isInstanceOf(FileAlreadyExistsException.class);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    OwnerOnlyFiles.restrict(file);
    assertThat(mode(file)).isEqualTo("rw-------");
  }

  @Test
  void refusesWhatOthersMayReadOrWriteAndNamesTheRemedy() throws IOException {
    Path file = tmp.resolve("secret");
    OwnerOnlyFiles.createFile(file);
    for (String loose : List.of("rw-r--r--", "rw-rw----", "rw----r--", "rwx------", "rw-----w-")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(loose));
      assertThatThrownBy(() -> OwnerOnlyFiles.requireOwnerOnly(file, "key file", ", or else"))
          .as(loose)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("key file " + file + " has mode " + loose)
          .hasMessageEndingWith("chmod 600 it, or else");
    }
    for (String fine : List.of("rw-------", "r--------")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(fine));
      OwnerOnlyFiles.requireOwnerOnly(file, "key file", "");
    }
  }

  @Test
  void refusesASymbolicLinkToAnOwnerOnlyFile() throws IOException {
    Path real = tmp.resolve("real");
    OwnerOnlyFiles.createFile(real);
    Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
    assertThatThrownBy(() -> OwnerOnlyFiles.requireOwnerOnly(link, "key file", ""))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not a regular file");
  }

  @Test
  void aFileThatAnOpenCreatesIsTheOwnersOnlyAndAnExistingFileKeepsItsMode() throws IOException {
    Path file = tmp.resolve("db.lock");
    try (FileChannel channel =
        OwnerOnlyFiles.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(new byte[] {1}));
    }
    assertThat(mode(file)).isEqualTo("rw-------");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    try (FileChannel channel =
        OwnerOnlyFiles.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      assertThat(channel.size()).isEqualTo(1);
    }
    assertThat(mode(file)).isEqualTo("rw-r-----");
    assertThatThrownBy(
            () ->
                OwnerOnlyFiles.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        .isInstanceOf(FileAlreadyExistsException.class);
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }
}
