package dev.qinglong.app.platform;

import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaOperation;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * Every {@code qinglong.*} property of DESIGN §10 this application reads. Bad values refuse to
 * start with a message naming the property.
 */
@ConfigurationProperties("qinglong")
@Validated
public class QingLongProperties {

  /** Store kinds of {@code qinglong.store}. */
  public enum Store {
    SQLITE,
    POSTGRES
  }

  /** Authentication modes of {@code qinglong.auth.mode}. */
  public enum AuthMode {
    DEV_TOKENS,
    JWT
  }

  /** Process roles of {@code qinglong.role} (DESIGN §6). */
  public enum Role {
    ALL,
    WRITER,
    READER,
    WORKER
  }

  /** Download modes of {@code qinglong.downloads.mode} (ADR 002). */
  public enum DownloadMode {
    STANDALONE,
    SHARED
  }

  /** Console log formats of {@code qinglong.log-format}. */
  public enum LogFormat {
    TEXT,
    JSON
  }

  /** Directory of the SQLite file (qinglong.db), the dev tokens and the artifact storage root. */
  @NotNull private Path dataDir = Path.of("./data");

  /** Which store backs the ports: sqlite (embedded, default) or postgres. */
  @NotNull private Store store = Store.SQLITE;

  /** Process role: all, writer, reader or worker. */
  @NotNull private Role role = Role.ALL;

  /** Console log format: text (default) or json (Elastic Common Schema, one object a line). */
  @NotNull private LogFormat logFormat = LogFormat.TEXT;

  @Valid private final Auth auth = new Auth();
  @Valid private final ManagementQuota managementQuota = new ManagementQuota();
  @Valid private final Shield shield = new Shield();
  @Valid private final Postgres postgres = new Postgres();
  @Valid private final Ai ai = new Ai();
  @Valid private final Artifacts artifacts = new Artifacts();
  @Valid private final Downloads downloads = new Downloads();

  public Artifacts getArtifacts() {
    return artifacts;
  }

  public Downloads getDownloads() {
    return downloads;
  }

  /** {@code qinglong.artifacts.*}. */
  public static class Artifacts {
    /** Largest accepted artifact upload in bytes; larger gets 413. */
    @Min(1)
    private long maxBytes = 268_435_456L;

    public long getMaxBytes() {
      return maxBytes;
    }

    public void setMaxBytes(long maxBytes) {
      this.maxBytes = maxBytes;
    }
  }

  /** {@code qinglong.downloads.*} (ADR 002). */
  public static class Downloads {
    /** standalone (one download server per database) or shared (fixed-share leases). */
    @NotNull private DownloadMode mode = DownloadMode.STANDALONE;

    /** Total payload budget in bytes per second (shared: of all gateways); 0 = no limit. */
    @Min(0)
    private long rateBytesPerSecond = 0;

    /** Per-principal payload budget in bytes per second (shared: in total); 0 = no limit. */
    @Min(0)
    private long perPrincipalBytesPerSecond = 0;

    /** Shared mode: number of slots (shares), 1..1024. */
    @Min(1)
    @Max(1024)
    private int slots = 1;

    /** Shared mode: this process's slot, 0 <= slot < slots. */
    @Min(0)
    @Max(1023)
    private int slot = 0;

    @AssertTrue(message = "qinglong.downloads.slot must be below qinglong.downloads.slots")
    public boolean isSlotWithinSlots() {
      return slot < slots;
    }

    public DownloadMode getMode() {
      return mode;
    }

    public void setMode(DownloadMode mode) {
      this.mode = mode;
    }

    public long getRateBytesPerSecond() {
      return rateBytesPerSecond;
    }

    public void setRateBytesPerSecond(long rateBytesPerSecond) {
      this.rateBytesPerSecond = rateBytesPerSecond;
    }

    public long getPerPrincipalBytesPerSecond() {
      return perPrincipalBytesPerSecond;
    }

    public void setPerPrincipalBytesPerSecond(long perPrincipalBytesPerSecond) {
      this.perPrincipalBytesPerSecond = perPrincipalBytesPerSecond;
    }

    public int getSlots() {
      return slots;
    }

    public void setSlots(int slots) {
      this.slots = slots;
    }

    public int getSlot() {
      return slot;
    }

    public void setSlot(int slot) {
      this.slot = slot;
    }
  }

  public Path getDataDir() {
    return dataDir;
  }

  public void setDataDir(Path dataDir) {
    this.dataDir = dataDir;
  }

  public Store getStore() {
    return store;
  }

  public void setStore(Store store) {
    this.store = store;
  }

  public Role getRole() {
    return role;
  }

  public void setRole(Role role) {
    this.role = role;
  }

  public LogFormat getLogFormat() {
    return logFormat;
  }

  public void setLogFormat(LogFormat logFormat) {
    this.logFormat = logFormat;
  }

  public Auth getAuth() {
    return auth;
  }

  public ManagementQuota getManagementQuota() {
    return managementQuota;
  }

  public Shield getShield() {
    return shield;
  }

  public Postgres getPostgres() {
    return postgres;
  }

  public Ai getAi() {
    return ai;
  }

  /** {@code qinglong.ai.*}: the optional model-invocation quota feature (ADR 001, DESIGN §5). */
  public static class Ai {
    /**
     * Load the feature: apply its migrations, wire its store and serve its routes. Disabled (the
     * default) none of it exists and its routes answer 404.
     */
    private boolean enabled = false;

    /** PostgreSQL: connections of the runtime pool (logs in as ql3_runtime). */
    @Min(1)
    @Max(64)
    private int runtimePoolSize = 2;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getRuntimePoolSize() {
      return runtimePoolSize;
    }

    public void setRuntimePoolSize(int runtimePoolSize) {
      this.runtimePoolSize = runtimePoolSize;
    }
  }

  /** {@code qinglong.auth.*}. */
  public static class Auth {
    /** dev-tokens (local default) or jwt (OAuth2 resource server). */
    @NotNull private AuthMode mode = AuthMode.DEV_TOKENS;

    /** Allow dev-tokens mode on a non-loopback server.address (never in production). */
    private boolean devTokensOnNetwork = false;

    /** User ids that are global administrators (implicit project.admin everywhere). */
    @NotNull private List<String> globalAdmins = new ArrayList<>(List.of("admin"));

    @Valid private final Jwt jwt = new Jwt();

    public AuthMode getMode() {
      return mode;
    }

    public void setMode(AuthMode mode) {
      this.mode = mode;
    }

    public boolean isDevTokensOnNetwork() {
      return devTokensOnNetwork;
    }

    public void setDevTokensOnNetwork(boolean devTokensOnNetwork) {
      this.devTokensOnNetwork = devTokensOnNetwork;
    }

    public List<String> getGlobalAdmins() {
      return globalAdmins;
    }

    public void setGlobalAdmins(List<String> globalAdmins) {
      this.globalAdmins = globalAdmins;
    }

    public Jwt getJwt() {
      return jwt;
    }
  }

  /** {@code qinglong.auth.jwt.*}. */
  public static class Jwt {
    /** Expected "iss" claim; also used for OIDC discovery when jwk-set-uri is not set. */
    private String issuerUri;

    /** Where the signing keys are published (JWK Set). */
    private String jwkSetUri;

    /** A value the "aud" claim must contain. */
    private String audience;

    /** Allowed clock skew when checking exp and nbf. */
    @NotNull private Duration clockSkew = Duration.ofSeconds(30);

    public String getIssuerUri() {
      return issuerUri;
    }

    public void setIssuerUri(String issuerUri) {
      this.issuerUri = issuerUri;
    }

    public String getJwkSetUri() {
      return jwkSetUri;
    }

    public void setJwkSetUri(String jwkSetUri) {
      this.jwkSetUri = jwkSetUri;
    }

    public String getAudience() {
      return audience;
    }

    public void setAudience(String audience) {
      this.audience = audience;
    }

    public Duration getClockSkew() {
      return clockSkew;
    }

    public void setClockSkew(Duration clockSkew) {
      this.clockSkew = clockSkew;
    }
  }

  /** {@code qinglong.management-quota.*} (ADR 000). */
  public static class ManagementQuota {
    /** Whether propose/decide/inspect consume the durable quota. */
    private boolean enabled = true;

    /** Fixed window length; at most 5m. */
    @NotNull private Duration window = ManagementQuotaPolicy.DEFAULT_WINDOW;

    @Valid private final Limits limits = new Limits();

    @AssertTrue(
        message =
            "qinglong.management-quota.window must be between 1s and 5m (ADR 000 hard bound), in"
                + " whole milliseconds")
    public boolean isWindowWithinBounds() {
      return window != null
          && window.compareTo(Duration.ofSeconds(1)) >= 0
          && window.compareTo(ManagementQuotaPolicy.MAX_WINDOW) <= 0
          && window.getNano() % 1_000_000 == 0;
    }

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = window;
    }

    public Limits getLimits() {
      return limits;
    }

    /** The core policy these properties describe. */
    public ManagementQuotaPolicy toPolicy() {
      Map<QuotaOperation, Integer> map = new EnumMap<>(QuotaOperation.class);
      map.put(QuotaOperation.PROPOSE, limits.propose);
      map.put(QuotaOperation.DECIDE, limits.decide);
      map.put(QuotaOperation.INSPECT, limits.inspect);
      map.put(QuotaOperation.MODEL_USAGE_READ, limits.modelUsageRead);
      return new ManagementQuotaPolicy(enabled, window, map);
    }
  }

  /** {@code qinglong.management-quota.limits.*}: requests per window, each 1..1000. */
  public static class Limits {
    @Min(1)
    @Max(ManagementQuotaPolicy.MAX_LIMIT)
    private int propose = QuotaOperation.PROPOSE.defaultLimit();

    @Min(1)
    @Max(ManagementQuotaPolicy.MAX_LIMIT)
    private int decide = QuotaOperation.DECIDE.defaultLimit();

    @Min(1)
    @Max(ManagementQuotaPolicy.MAX_LIMIT)
    private int inspect = QuotaOperation.INSPECT.defaultLimit();

    /** Reads of model usage (window and ledger) per window, when qinglong.ai.enabled. */
    @Min(1)
    @Max(ManagementQuotaPolicy.MAX_LIMIT)
    private int modelUsageRead = QuotaOperation.MODEL_USAGE_READ.defaultLimit();

    public int getModelUsageRead() {
      return modelUsageRead;
    }

    public void setModelUsageRead(int modelUsageRead) {
      this.modelUsageRead = modelUsageRead;
    }

    public int getPropose() {
      return propose;
    }

    public void setPropose(int propose) {
      this.propose = propose;
    }

    public int getDecide() {
      return decide;
    }

    public void setDecide(int decide) {
      this.decide = decide;
    }

    public int getInspect() {
      return inspect;
    }

    public void setInspect(int inspect) {
      this.inspect = inspect;
    }
  }

  /** {@code qinglong.shield.*}: the process-local pre-authentication shield. */
  public static class Shield {
    /** Largest accepted request body in bytes (JSON); larger gets 413 before it is read. */
    @Min(1)
    @Max(16 * 1024 * 1024)
    private long maxBodyBytes = 64 * 1024;

    /** Requests served at once by this process; excess gets 503 at once. */
    @Min(1)
    @Max(100_000)
    private int maxConcurrentRequests = 64;

    /** Requests served at once for one client address; excess gets 429 at once. */
    @Min(1)
    @Max(100_000)
    private int maxConcurrentRequestsPerClient = 16;

    public long getMaxBodyBytes() {
      return maxBodyBytes;
    }

    public void setMaxBodyBytes(long maxBodyBytes) {
      this.maxBodyBytes = maxBodyBytes;
    }

    public int getMaxConcurrentRequests() {
      return maxConcurrentRequests;
    }

    public void setMaxConcurrentRequests(int maxConcurrentRequests) {
      this.maxConcurrentRequests = maxConcurrentRequests;
    }

    public int getMaxConcurrentRequestsPerClient() {
      return maxConcurrentRequestsPerClient;
    }

    public void setMaxConcurrentRequestsPerClient(int maxConcurrentRequestsPerClient) {
      this.maxConcurrentRequestsPerClient = maxConcurrentRequestsPerClient;
    }
  }

  /** {@code qinglong.postgres.*}. */
  public static class Postgres {
    /** JDBC URL of the PostgreSQL database. */
    private String url;

    /** Schema owner login; runs the migrations. */
    private String username;

    /** Schema owner password. */
    private String password;

    /** Create the ql3_* login roles if missing (needs CREATEROLE) — for dev and tests. */
    private boolean bootstrapRoles = false;

    /**
     * Migrate at start as the schema owner (default, so a laptop start is one command); false: no
     * owner login is used, the schema versions are verified and a schema that is behind refuses the
     * start. Clusters run {@code java -jar app.jar migrate} once per release instead.
     */
    private boolean migrate = true;

    /** Connections of the ql3_reader pool of a read gateway (Policy and published reads). */
    @Min(1)
    @Max(64)
    private int readerPoolSize = 2;

    /** Connections of the package-manager pool (governance, quota, policy reads). */
    @Min(1)
    @Max(64)
    private int managerPoolSize = 2;

    /** Connections of the admin pool (member writes). */
    @Min(1)
    @Max(64)
    private int adminPoolSize = 1;

    /** Logins per component role (package-manager, admin, runtime, package-executor, …). */
    private Map<String, RoleLogin> roles = new LinkedHashMap<>();

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public boolean isBootstrapRoles() {
      return bootstrapRoles;
    }

    public void setBootstrapRoles(boolean bootstrapRoles) {
      this.bootstrapRoles = bootstrapRoles;
    }

    public boolean isMigrate() {
      return migrate;
    }

    public void setMigrate(boolean migrate) {
      this.migrate = migrate;
    }

    public int getReaderPoolSize() {
      return readerPoolSize;
    }

    public void setReaderPoolSize(int readerPoolSize) {
      this.readerPoolSize = readerPoolSize;
    }

    public int getManagerPoolSize() {
      return managerPoolSize;
    }

    public void setManagerPoolSize(int managerPoolSize) {
      this.managerPoolSize = managerPoolSize;
    }

    public int getAdminPoolSize() {
      return adminPoolSize;
    }

    public void setAdminPoolSize(int adminPoolSize) {
      this.adminPoolSize = adminPoolSize;
    }

    public Map<String, RoleLogin> getRoles() {
      return roles;
    }

    public void setRoles(Map<String, RoleLogin> roles) {
      this.roles = roles;
    }

    /**
     * The login of component role {@code role} (e.g. package-manager): its own name by default.
     * Keys match without dashes too, because an environment variable such as {@code
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
      RoleLogin login = new RoleLogin();
      login.setUsername("ql3_" + role.replace('-', '_'));
      if (configured != null) {
        if (configured.getUsername() != null && !configured.getUsername().isBlank()) {
          login.setUsername(configured.getUsername());
        }
        login.setPassword(configured.getPassword());
      }
      return login;
    }

    private static String canonicalRole(String key) {
      return key.replace("-", "").replace("_", "").toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** A PostgreSQL login. */
  public static class RoleLogin {
    private String username;
    private String password;

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }
  }
}
