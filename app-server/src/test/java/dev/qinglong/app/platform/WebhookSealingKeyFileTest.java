package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.qinglong.core.kernel.OwnerOnlyFiles;
import dev.qinglong.core.webhooks.SecretSealer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook sealing key file is created 0600, read again on the next start, and refused when
 * others may read it. POSIX file systems only (the CI's is).
 */
class WebhookSealingKeyFileTest {
  @TempDir Path tmp;

  @BeforeEach
  void posixOnly() {
    assumeTrue(OwnerOnlyFiles.posix(), "file modes need a POSIX file system");
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

  @Test
  void aMissingDataDirectoryIsCreatedForTheOwnerOnly() throws IOException {
    // The key may be the first thing the app writes (whichever bean starts first makes the data
    // directory): the directory must be 0700 then too, not the umask's 0755.
    Path dataDir = tmp.resolve("new").resolve("data");
    WebhookSealing.fromKeyFile(dataDir.resolve(WebhookSealing.KEY_FILE));
    assertThat(mode(dataDir)).isEqualTo("rwx------");
    assertThat(mode(dataDir.getParent())).isEqualTo("rwx------");
    assertThat(mode(dataDir.resolve(WebhookSealing.KEY_FILE))).isEqualTo("rw-------");
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
  }
}
