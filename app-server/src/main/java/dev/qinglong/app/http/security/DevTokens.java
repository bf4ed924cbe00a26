package dev.qinglong.app.http.security;

import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.OwnerOnlyFiles;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * The local dev-tokens file: {@code user=token} lines, created once with mode 0600 (in a directory
 * created 0700) and random 32-byte tokens (base64url), reused on later starts only while its mode
 * is still owner-only. A file this class wrote (it starts with {@link #HEADER}) that lacks one of
 * {@link #USERS} (written by a version that had fewer) gets the missing lines appended, its
 * existing tokens unchanged; a file without that header is the operator's own and is read as it is.
 * A presented token is looked up by its SHA-256 digest, then the stored digest is compared in
 * constant time (see {@link #userFor}).
 */
public final class DevTokens {
  public static final String FILE_NAME = "dev-tokens.properties";
  public static final List<String> USERS = List.of("admin", "alice", "bob", "carol", "runtime");

  /** The first line of a file this class wrote. */
  static final String HEADER =
      "# QingLong dev tokens (qinglong.auth.mode=dev-tokens). Local use only.";

  private final Path file;
  private final boolean created;
  private final List<String> added;
  private final Set<String> users;
  // SHA-256 of the token (as a key) -> the entry; never the token itself.
  private final Map<Digest, Entry> byDigest;

  /** A stored token: its SHA-256 (fixed length, for MessageDigest.isEqual) and its user. */
  private record Entry(byte[] digest, String user) {}

  /** A SHA-256 digest as a hash key (value equality over the bytes). */
  private record Digest(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Digest d && Arrays.equals(bytes, d.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }
  }

  private DevTokens(Path file, boolean created, List<String> added, Map<String, String> tokens) {
    this.file = file;
    this.created = created;
    this.added = List.copyOf(added);
    Map<Digest, Entry> index = new HashMap<>();
    tokens.forEach(
        (user, token) -> {
          byte[] digest = sha256(token);
          if (index.putIfAbsent(new Digest(digest), new Entry(digest, user)) != null) {
            throw new IllegalStateException(
                "dev-tokens file " + file + " gives one token to two users ('" + user + "')");
          }
        });
    this.byDigest = Map.copyOf(index);
    this.users = Collections.unmodifiableSet(new LinkedHashSet<>(tokens.keySet()));
  }

  /** Loads {@code <dataDir>/dev-tokens.properties}, creating it first if it does not exist. */
  public static DevTokens loadOrCreate(Path dataDir) {
    Path file = dataDir.resolve(FILE_NAME).toAbsolutePath().normalize();
    try {
      OwnerOnlyFiles.createDirectories(file.getParent());
      boolean created = false;
      List<String> added = List.of();
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        create(file);
        created = true;
      } else {
        OwnerOnlyFiles.requireOwnerOnly(
            file, "dev-tokens file", ", or delete it to get new tokens");
        added = appendMissingUsers(file);
      }
      Properties props = read(file);
      Map<String, String> tokens = new LinkedHashMap<>();
      for (String user : props.stringPropertyNames()) {
        String token = props.getProperty(user).trim();
        if (!Identifiers.isValid(user) || token.length() < 16) {
          throw new IllegalStateException(
              "dev-tokens file " + file + " has an invalid line for '" + user + "'");
        }
        tokens.put(user, token);
      }
      return new DevTokens(file, created, added, tokens);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or create the dev-tokens file " + file, e);
    }
  }

  private static Properties read(Path file) throws IOException {
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      props.load(reader);
    }
    return props;
  }

  /**
   * Appends a line with a new random token for each of {@link #USERS} that a file this class wrote
   * lacks, under an exclusive lock on the file (two processes starting on one data directory add
   * each user once). Appending keeps the file's mode and every existing line.
   *
   * @return the users added, in {@link #USERS} order
   */
  private static List<String> appendMissingUsers(Path file) throws IOException {
    if (missingUsers(file).isEmpty()) {
      return List.of(); // opened for reading only: a complete file may well be read-only (0400)
    }
    try (FileChannel channel =
            FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        FileLock lock = channel.lock()) {
      // Again under the lock: another process may have appended them meanwhile.
      List<String> missing = missingUsers(file);
      if (missing.isEmpty()) {
        return missing;
      }
      String text = Files.readString(file, StandardCharsets.UTF_8);
      StringBuilder lines = new StringBuilder(text.endsWith("\n") ? "" : "\n");
      SecureRandom random = new SecureRandom();
      missing.forEach(user -> lines.append(line(user, random)));
      ByteBuffer bytes = ByteBuffer.wrap(lines.toString().getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
      return missing;
    }
  }

  /** The users of {@link #USERS} a file this class wrote lacks; none for any other file. */
  private static List<String> missingUsers(Path file) throws IOException {
    if (!Files.readString(file, StandardCharsets.UTF_8).startsWith(HEADER)) {
      return List.of();
    }
    Properties props = read(file);
    return USERS.stream().filter(u -> !props.containsKey(u)).toList();
  }

  /** {@code user=<random 32 bytes, base64url>} and a newline. */
  private static String line(String user, SecureRandom random) {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return user + "=" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes) + "\n";
  }

  private static void create(Path file) throws IOException {
    OwnerOnlyFiles.createFile(file);
    SecureRandom random = new SecureRandom();
    try (Writer out =
        Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.WRITE)) {
      out.write(HEADER + "\n");
      out.write("# Send as: Authorization: Bearer <token>\n");
      for (String user : USERS) {
        out.write(line(user, random));
      }
    }
    OwnerOnlyFiles.restrict(file);
  }

  /**
   * The user the token belongs to, in time independent of the number of users.
   *
   * <p>No timing oracle on the token: the only work that depends on the presented token before the
   * final compare is hashing it (time depends on its length only) and a hash-map lookup keyed by
   * its SHA-256 digest. What that lookup's timing could reveal (hash-bucket collisions, where two
   * digests first differ) is about the digest, and an attacker cannot steer a digest towards a
   * stored one without a SHA-256 preimage, so learning "my digest shares bytes with a stored one"
   * does not help guess a token byte by byte (unlike comparing raw tokens). The candidate found is
   * then confirmed with {@link MessageDigest#isEqual} (constant time for equal lengths). The former
   * design compared against every entry, which was O(users) per request: 19 % of the request CPU
   * with 10,000 users (docs/benchmarks.md, "HTTP path profile").
   */
  public Optional<String> userFor(String token) {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    byte[] presented = sha256(token);
    Entry candidate = byDigest.get(new Digest(presented));
    if (candidate == null || !MessageDigest.isEqual(presented, candidate.digest())) {
      return Optional.empty();
    }
    return Optional.of(candidate.user());
  }

  public Path file() {
    return file;
  }

  public boolean created() {
    return created;
  }

  /** The users this start appended to an existing file (empty when it had them all). */
  public List<String> added() {
    return added;
  }

  public Set<String> users() {
    return users;
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
    }
  }
}
