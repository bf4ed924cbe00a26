package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.qinglong.core.webhooks.SecretSealer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The credential files of the data directory (dev tokens, the webhook sealing key) are created 0600
 * in 0700 directories, and a file others may read or write, or a symbolic link, is refused with the
 * remedy. POSIX file systems only (the CI's is).
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
  void theWebhookKeyFileIsCreatedOwnerOnlyReadAgainAndRefusedWhenLoose() throws IOException {
    Path file = tmp.resolve("data").resolve(WebhookSealing.KEY_FILE);
    Files.createDirectories(file.getParent());
    SecretSealer first = WebhookSealing.fromKeyFile(file);
    assertThat(mode(file)).isEqualTo("rw-------");
    byte[] sealed = first.seal("s3cret".getBytes(StandardCharsets.UTF_8));
    assertThat(WebhookSealing.fromKeyFile(file).open(sealed))
        .isEqualTo("s3cret".getBytes(StandardCharsets.UTF_8));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    assertThatThrownBy(() -> WebhookSealing.fromKeyFile(file))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("webhook key file " + file + " has mode rw-r-----")
        .hasMessageEndingWith("chmod 600 it");
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }
}
