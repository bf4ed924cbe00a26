package dev.qinglong.app.platform;

import dev.qinglong.backend.BackendParts;
import java.util.Locale;
import org.springframework.core.env.Environment;

/** What each process role ({@code qinglong.role}) serves and opens. */
public final class Roles {
  private Roles() {}

  /** The role from the environment, before the properties are bound (default {@code all}). */
  static Role of(Environment environment) {
    String value = environment.getProperty("qinglong.role", "all");
    try {
      return Role.valueOf(value.trim().replace('-', '_').toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "qinglong.role must be one of all, writer, reader, worker; was '" + value + "'", e);
    }
  }

  /** Whether the role serves the management API (governance, members, uploads, model quota). */
  public static boolean managesApi(Role role) {
    return role == Role.ALL || role == Role.WRITER;
  }

  /** Whether the role serves artifact downloads. */
  public static boolean servesDownloads(Role role) {
    return role == Role.ALL || role == Role.READER;
  }

  /** Whether the role runs the publication worker. */
  public static boolean runsWorker(Role role) {
    return role == Role.ALL || role == Role.WORKER;
  }

  /** The store parts a process of {@code role} opens. */
  public static BackendParts parts(Role role, boolean aiEnabled) {
    boolean api = managesApi(role);
    return new BackendParts(api, api && aiEnabled, runsWorker(role), servesDownloads(role));
  }
}
