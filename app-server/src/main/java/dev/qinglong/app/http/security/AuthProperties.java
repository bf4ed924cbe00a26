package dev.qinglong.app.http.security;

import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.auth.*}: how {@code /v1/**} requests authenticate, and who administers globally.
 *
 * @param mode dev-tokens (local default) or jwt (OAuth2 resource server).
 * @param devTokensOnNetwork Allow dev-tokens mode on a non-loopback server.address (never in
 *     production).
 * @param globalAdmins User ids that are global administrators (implicit project.admin everywhere).
 *     Unset: {@code admin} in dev-tokens mode, nobody in jwt mode (there the id is the IdP's, and
 *     whoever is called "admin" there would be one); see {@link #effectiveGlobalAdmins()}.
 * @param jwt JWT validation of {@code qinglong.auth.mode=jwt}.
 */
@ConfigurationProperties("qinglong.auth")
@Validated
public record AuthProperties(
    @NotNull @DefaultValue("dev-tokens") Mode mode,
    @DefaultValue("false") boolean devTokensOnNetwork,
    List<String> globalAdmins,
    @Valid @DefaultValue Jwt jwt) {

  /** The dev-tokens mode's administrator (its tokens file has a line for it). */
  public static final String DEV_TOKENS_ADMIN = "admin";

  public AuthProperties {
    globalAdmins =
        globalAdmins == null ? null : Collections.unmodifiableList(new ArrayList<>(globalAdmins));
  }

  /**
   * The global administrators in effect: {@code qinglong.auth.global-admins} if set; else {@code
   * admin} in dev-tokens mode and nobody in jwt mode.
   */
  public List<String> effectiveGlobalAdmins() {
    if (globalAdmins != null) {
      return globalAdmins.stream().map(String::trim).filter(a -> !a.isEmpty()).toList();
    }
    return mode == Mode.DEV_TOKENS ? List.of(DEV_TOKENS_ADMIN) : List.of();
  }

  /** Authentication modes of {@code qinglong.auth.mode}. */
  public enum Mode {
    DEV_TOKENS,
    JWT
  }

  /**
   * {@code qinglong.auth.jwt.*}.
   *
   * @param issuerUri Expected "iss" claim; also used for OIDC discovery when jwk-set-uri is not
   *     set.
   * @param jwkSetUri Where the signing keys are published (JWK Set).
   * @param audience A value the "aud" claim must contain.
   * @param clockSkew Allowed clock skew when checking exp and nbf, 0 … 5 minutes.
   * @param tokenTypes Accepted values of the JOSE header "typ" (case-insensitive, with or without
   *     "application/"); a token without "typ" is accepted. ID tokens are refused whatever their
   *     type.
   * @param keySetRefreshCooldown Least time between two fetches of the JWK set, for the whole
   *     process: a token whose "kid" is not among the cached keys triggers a fetch only if none ran
   *     within it, and is refused at once otherwise (an anonymous flood of unknown kids costs one
   *     fetch per cooldown). 1s … 1h.
   * @param keySetFetchTimeout Bound on one JWK set fetch (connect, read and in total); the one
   *     request that triggered a fetch waits at most this long, every other request not at all.
   *     50ms … 10s.
   * @param maxTokenLifetime Largest accepted distance of "exp" beyond now (plus clock-skew): a
   *     token valid for longer is refused, whoever signed it. 1m … 30d.
   */
  public record Jwt(
      String issuerUri,
      String jwkSetUri,
      String audience,
      @NotNull @DefaultValue("30s") Duration clockSkew,
      @NotEmpty @DefaultValue({"at+jwt", "JWT"}) List<String> tokenTypes,
      @NotNull @DefaultValue("30s") Duration keySetRefreshCooldown,
      @NotNull @DefaultValue("1s") Duration keySetFetchTimeout,
      @NotNull @DefaultValue("24h") Duration maxTokenLifetime) {

    /** Largest accepted clock skew: beyond it an expired token lives on noticeably. */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(5);

    public Jwt {
      tokenTypes = tokenTypes == null ? null : List.copyOf(tokenTypes);
    }

    @AssertTrue(message = "qinglong.auth.jwt.clock-skew must be between 0 and 5m")
    public boolean isClockSkewBounded() {
      return clockSkew == null
          || (!clockSkew.isNegative() && clockSkew.compareTo(MAX_CLOCK_SKEW) <= 0);
    }

    @AssertTrue(message = "qinglong.auth.jwt.key-set-refresh-cooldown must be between 1s and 1h")
    public boolean isKeySetRefreshCooldownBounded() {
      return within(keySetRefreshCooldown, Duration.ofSeconds(1), Duration.ofHours(1));
    }

    @AssertTrue(message = "qinglong.auth.jwt.key-set-fetch-timeout must be between 50ms and 10s")
    public boolean isKeySetFetchTimeoutBounded() {
      return within(keySetFetchTimeout, Duration.ofMillis(50), Duration.ofSeconds(10));
    }

    @AssertTrue(message = "qinglong.auth.jwt.max-token-lifetime must be between 1m and 30d")
    public boolean isMaxTokenLifetimeBounded() {
      return within(maxTokenLifetime, Duration.ofMinutes(1), Duration.ofDays(30));
    }

    private static boolean within(Duration d, Duration min, Duration max) {
      return d == null || (d.compareTo(min) >= 0 && d.compareTo(max) <= 0);
    }
  }
}
