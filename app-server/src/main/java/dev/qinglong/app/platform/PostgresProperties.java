package dev.qinglong.app.platform;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.postgres.*}: the PostgreSQL store (used when {@code qinglong.store=postgres}).
 *
 * @param url JDBC URL of the PostgreSQL database.
 * @param username Schema owner login; runs the migrations.
 * @param password Schema owner password.
 * @param bootstrapRoles Create the ql3_* login roles if missing (needs CREATEROLE) — for dev and
 *     tests.
 * @param migrate Migrate at start as the schema owner (default, so a laptop start is one command);
 *     false: no owner login is used, the schema versions are verified and a schema that is behind
 *     refuses the start. Clusters run {@code java -jar app.jar migrate} once per release instead.
 * @param readerPoolSize Connections of the ql3_reader pool of a read gateway (Policy and published
 *     reads).
 * @param managerPoolSize Connections of the package-manager pool (governance, quota, policy reads).
 * @param adminPoolSize Connections of the admin pool (member writes).
 * @param roles Logins per component role (package-manager, admin, runtime, package-executor, …).
 * @param connectTimeout Bound on opening a connection (TCP connect, and login), whole seconds.
 * @param socketTimeout Bound on one wait for the server's answer on the network, whole seconds;
 *     longer than the statement timeout. Catches a database or network that went silent.
 * @param statementTimeout Server-side statement_timeout of every pool connection (0: none).
 * @param lockTimeout Server-side lock_timeout of every pool connection: a wait for a row, table or
 *     advisory lock (0: none).
 */
@ConfigurationProperties("qinglong.postgres")
@Validated
public record PostgresProperties(
    String url,
    String username,
    String password,
    @DefaultValue("false") boolean bootstrapRoles,
    @DefaultValue("true") boolean migrate,
    @Min(1) @Max(64) @DefaultValue("2") int readerPoolSize,
    @Min(1) @Max(64) @DefaultValue("2") int managerPoolSize,
    @Min(1) @Max(64) @DefaultValue("1") int adminPoolSize,
    Map<String, RoleLogin> roles,
    @DefaultValue("3s") Duration connectTimeout,
    @DefaultValue("10s") Duration socketTimeout,
    @DefaultValue("5s") Duration statementTimeout,
    @DefaultValue("3s") Duration lockTimeout) {

  public PostgresProperties {
    // Keeps the bound order: the first configured key that matches a role wins (see login).
    roles = roles == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(roles));
  }

  /**
   * A PostgreSQL login.
   *
   * @param username Login name.
   * @param password Login password.
   */
  public record RoleLogin(String username, String password) {}

  /**
   * The login of component role {@code role} (e.g. package-manager): its own name by default. Keys
   * match without dashes too, because an environment variable such as {@code
   * QINGLONG_POSTGRES_ROLES_PACKAGEMANAGER_PASSWORD} binds the map key {@code packagemanager}.
   */
  public RoleLogin login(String role) {
    String wanted = canonicalRole(role);
    RoleLogin configured =
        roles.entrySet().stream()
            .filter(e -> canonicalRole(e.getKey()).equals(wanted))
            .map(Map.Entry::getValue)
            .findFirst()
            .orElse(null);
    String username = "ql3_" + role.replace('-', '_');
    if (configured == null) {
      return new RoleLogin(username, null);
    }
    if (configured.username() != null && !configured.username().isBlank()) {
      username = configured.username();
    }
    return new RoleLogin(username, configured.password());
  }

  private static String canonicalRole(String key) {
    return key.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
  }
}
