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
   */
  public record Jwt(
      String issuerUri,
      String jwkSetUri,
      String audience,
      @NotNull @DefaultValue("30s") Duration clockSkew,
      @NotEmpty @DefaultValue({"at+jwt", "JWT"}) List<String> tokenTypes) {

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
  }
}
