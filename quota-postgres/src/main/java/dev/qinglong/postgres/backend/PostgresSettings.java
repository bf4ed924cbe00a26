package dev.qinglong.postgres.backend;

import java.util.Map;
import java.util.Objects;

/**
 * Everything the PostgreSQL backend needs, as plain values ({@code qinglong.postgres.*}).
 *
 * @param url the JDBC URL
 * @param owner the schema owner; used only when migrating (may be null otherwise)
 * @param logins the login of each component role, keyed by {@link #PACKAGE_MANAGER}, {@link
 *     #ADMIN}, {@link #RUNTIME}, {@link #PACKAGE_EXECUTOR}, {@link #READER}; a missing key logs in
 *     as the role's own name ({@code ql3_<role>}) without a password
 * @param bootstrapRoles create the {@code ql3_*} roles before migrating (dev and tests)
 * @param migrate migrate at start as the owner; {@code false}: only verify the schema versions
 * @param managerPoolSize connections of the {@code ql3_package_manager} pool
 * @param adminPoolSize connections of the {@code ql3_admin} pool
 * @param runtimePoolSize connections of the {@code ql3_runtime} pool
 * @param readerPoolSize connections of the {@code ql3_reader} pool of a download-only process
 */
public record PostgresSettings(
    String url,
    Login owner,
    Map<String, Login> logins,
    boolean bootstrapRoles,
    boolean migrate,
    int managerPoolSize,
    int adminPoolSize,
    int runtimePoolSize,
    int readerPoolSize) {
  public static final String PACKAGE_MANAGER = "package-manager";
  public static final String ADMIN = "admin";
  public static final String RUNTIME = "runtime";
  public static final String PACKAGE_EXECUTOR = "package-executor";
  public static final String READER = "reader";

  public PostgresSettings {
    if (url == null || url.isBlank()) {
      throw new IllegalArgumentException("qinglong.store=postgres needs qinglong.postgres.url");
    }
    logins = Map.copyOf(Objects.requireNonNull(logins));
  }

  /** A login: user name and password (null or empty: none). */
  public record Login(String username, String password) {
    public Login {
      Objects.requireNonNull(username, "username");
    }

    @Override
    public String toString() {
      return "Login[" + username + "]"; // never the password
    }
  }

  /** The login of component role {@code role}: configured, else {@code ql3_<role>}. */
  public Login login(String role) {
    Login configured = logins.get(role);
    return configured != null ? configured : new Login("ql3_" + role.replace('-', '_'), null);
  }

  /** The owner login; required to migrate. */
  public Login requireOwner() {
    if (owner == null || owner.username() == null || owner.username().isBlank()) {
      throw new IllegalStateException(
          "migrating needs the schema owner's login (qinglong.postgres.username / .password);"
              + " a process that does not migrate sets qinglong.postgres.migrate=false");
    }
    return owner;
  }
}
