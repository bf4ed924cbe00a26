package dev.qinglong.app.platform;

import dev.qinglong.core.kernel.OwnerOnlyFiles;
import dev.qinglong.core.webhooks.AesGcmSecretSealer;
import dev.qinglong.core.webhooks.SecretSealer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key that seals webhook signing secrets ({@code qinglong.webhooks.secret-key}): configured,
 * else on SQLite a key generated once into {@code <data-dir>/webhook-secret.key} (mode 0600, next
 * to the database file but not in it), else none (PostgreSQL: several processes share the database,
 * so a key of one process's disk would not open on the others; the webhooks stay off).
 */
public final class WebhookSealing {
  private static final Logger log = LoggerFactory.getLogger(WebhookSealing.class);

  /** The generated key's file under the data directory (SQLite only). */
  public static final String KEY_FILE = "webhook-secret.key";

  private WebhookSealing() {}

  /** The sealer this process uses, or empty (webhooks off). */
  public static Optional<SecretSealer> sealer(
      WebhooksProperties webhooks, Store store, Path dataDir) {
    if (webhooks.hasSecretKey()) {
      return Optional.of(AesGcmSecretSealer.fromBase64(webhooks.secretKey()));
    }
    if (store == Store.SQLITE) {
      return Optional.of(fromKeyFile(dataDir.resolve(KEY_FILE).toAbsolutePath().normalize()));
    }
    log.warn(
        "webhooks.disabled: qinglong.webhooks.secret-key is not set, so webhook routes answer 503"
            + " and no webhook is delivered; set it (base64 of 32 random bytes, the same on every"
            + " process of this database) to enable webhooks");
    return Optional.empty();
  }

  /** Reads the key file, creating it (mode 0600) with a new random key if it does not exist. */
  static SecretSealer fromKeyFile(Path file) {
    try {
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        create(file);
        log.info("webhooks.key-created file={}", file);
      }
      OwnerOnlyFiles.requireOwnerOnly(file, "webhook key file", "");
      String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
      try {
        return AesGcmSecretSealer.fromBase64(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException(
            "webhook key file "
                + file
                + " does not hold base64 of 32 bytes; restore it from a backup (deleting it makes"
                + " every stored webhook secret unusable)");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the webhook key file " + file, e);
    }
  }

  private static void create(Path file) throws IOException {
    OwnerOnlyFiles.createDirectories(file.getParent());
    byte[] key = new byte[AesGcmSecretSealer.KEY_BYTES];
    new SecureRandom().nextBytes(key);
    try {
      OwnerOnlyFiles.createFile(file);
    } catch (FileAlreadyExistsException e) {
      return; // Created meanwhile: read what is there.
    }
    Files.writeString(
        file,
        Base64.getEncoder().encodeToString(key) + "\n",
        StandardCharsets.US_ASCII,
        StandardOpenOption.WRITE);
    Arrays.fill(key, (byte) 0);
    OwnerOnlyFiles.restrict(file);
  }
}
