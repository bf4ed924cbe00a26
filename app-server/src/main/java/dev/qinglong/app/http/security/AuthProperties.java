package dev.qinglong.app.http.security;

import jakarta.validation.Valid;
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
 * @param jwt JWT validation of {@code qinglong.auth.mode=jwt}.
 */
@ConfigurationProperties("qinglong.auth")
@Validated
public record AuthProperties(
    @NotNull @DefaultValue("dev-tokens") Mode mode,
    @DefaultValue("false") boolean devTokensOnNetwork,
    @NotNull @DefaultValue("admin") List<String> globalAdmins,
    @Valid @DefaultValue Jwt jwt) {

  public AuthProperties {
    globalAdmins =
        globalAdmins == null ? null : Collections.unmodifiableList(new ArrayList<>(globalAdmins));
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
   * @param clockSkew Allowed clock skew when checking exp and nbf.
   */
  public record Jwt(
      String issuerUri,
      String jwkSetUri,
      String audience,
      @NotNull @DefaultValue("30s") Duration clockSkew) {}
}
