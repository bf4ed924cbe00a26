package dev.qinglong.app.http.security;

import dev.qinglong.core.kernel.Identifiers;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * The local dev-tokens file: {@code user=token} lines, created once with mode 0600 and random
 * 32-byte tokens (base64url), reused on later starts. Tokens are compared in constant time.
 */
public final class DevTokens {
  public static final String FILE_NAME = "dev-tokens.properties";
  public static final List<String> USERS = List.of("admin", "alice", "bob", "carol");

  private final Path file;
  private final boolean created;
  // user -> SHA-256 of the token: fixed-length values for MessageDigest.isEqual.
  private final Map<String, byte[]> hashes;

  private DevTokens(Path file, boolean created, Map<String, String> tokens) {
    this.file = file;
    this.created = created;
    Map<String, byte[]> h = new LinkedHashMap<>();
    tokens.forEach((user, token) -> h.put(user, sha256(token)));
    this.hashes = Map.copyOf(h);
  }

  /** Loads {@code <dataDir>/dev-tokens.properties}, creating it first if it does not exist. */
  public static DevTokens loadOrCreate(Path dataDir) {
    Path file = dataDir.resolve(FILE_NAME).toAbsolutePath().normalize();
    try {
      Files.createDirectories(file.getParent());
      boolean created = false;
      if (!Files.exists(file)) {
        create(file);
        created = true;
      }
      Properties props = new Properties();
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        props.load(reader);
      }
      Map<String, String> tokens = new LinkedHashMap<>();
      for (String user : props.stringPropertyNames()) {
        String token = props.getProperty(user).trim();
        if (!Identifiers.isValid(user) || token.length() < 16) {
          throw new IllegalStateException(
              "dev-tokens file " + file + " has an invalid line for '" + user + "'");
        }
        tokens.put(user, token);
      }
      return new DevTokens(file, created, tokens);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the dev-tokens file " + file, e);
    }
  }

  private static void create(Path file) throws IOException {
    boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
    if (posix) {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly));
    } else {
      Files.createFile(file);
    }
    SecureRandom random = new SecureRandom();
    try (Writer out =
        Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.WRITE)) {
      out.write("# QingLong dev tokens (qinglong.auth.mode=dev-tokens). Local use only.\n");
      out.write("# Send as: Authorization: Bearer <token>\n");
      for (String user : USERS) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        out.write(
            user + "=" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes) + "\n");
      }
    }
    if (posix) {
      Files.setPosixFilePermissions(file, ownerOnly);
    }
  }

  /** The user the token belongs to; compares against every entry in constant time. */
  public Optional<String> userFor(String token) {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    byte[] presented = sha256(token);
    String match = null;
    for (Map.Entry<String, byte[]> entry : hashes.entrySet()) {
      if (MessageDigest.isEqual(presented, entry.getValue())) {
        match = entry.getKey();
      }
    }
    return Optional.ofNullable(match);
  }

  public Path file() {
    return file;
  }

  public boolean created() {
    return created;
  }

  public Set<String> users() {
    return hashes.keySet();
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
    }
  }
}
