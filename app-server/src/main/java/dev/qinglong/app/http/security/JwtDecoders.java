package dev.qinglong.app.http.security;

import dev.qinglong.core.kernel.Identifiers;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * Builds the JWT decoder of {@code qinglong.auth.mode=jwt}: signature with an accepted algorithm
 * from the issuer's keys, then expiry (bounded skew), issuer, audience, token type (no ID tokens)
 * and a principal claim that is a valid user id.
 */
final class JwtDecoders {
  /** Claims only OpenID Connect ID tokens carry; an access token has none of them. */
  static final List<String> ID_TOKEN_CLAIMS = List.of("nonce", "at_hash", "c_hash");

  private JwtDecoders() {}

  /**
   * @param jwt {@code qinglong.auth.jwt.*}
   * @param algorithms accepted JWS algorithms ({@code
   *     spring.security.oauth2.resourceserver.jwt.jws-algorithms}, Spring Boot's default RS256)
   * @param principalClaim the claim that names the user ({@code …jwt.principal-claim-name}, default
   *     {@code sub})
   */
  static NimbusJwtDecoder build(
      AuthProperties.Jwt jwt, List<String> algorithms, String principalClaim) {
    if (isBlank(jwt.issuerUri())) {
      throw new IllegalStateException(
          "qinglong.auth.mode=jwt needs qinglong.auth.jwt.issuer-uri (the \"iss\" every token"
              + " must carry)");
    }
    if (isBlank(jwt.audience())) {
      throw new IllegalStateException("qinglong.auth.mode=jwt needs qinglong.auth.jwt.audience");
    }
    Set<SignatureAlgorithm> accepted = new LinkedHashSet<>();
    for (String name : algorithms == null || algorithms.isEmpty() ? List.of("RS256") : algorithms) {
      SignatureAlgorithm algorithm = SignatureAlgorithm.from(name.trim());
      if (algorithm == null) {
        throw new IllegalStateException(
            "spring.security.oauth2.resourceserver.jwt.jws-algorithms: unknown or unsupported"
                + " algorithm '"
                + name
                + "' (asymmetric JWS algorithms only, e.g. RS256, ES256, PS256)");
      }
      accepted.add(algorithm);
    }
    NimbusJwtDecoder decoder =
        (isBlank(jwt.jwkSetUri())
                ? NimbusJwtDecoder.withIssuerLocation(jwt.issuerUri())
                : NimbusJwtDecoder.withJwkSetUri(jwt.jwkSetUri()))
            .jwsAlgorithms(
                set -> {
                  set.clear();
                  set.addAll(accepted);
                })
            .build();

    List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
    JwtTimestampValidator timestamps = new JwtTimestampValidator(jwt.clockSkew());
    timestamps.setAllowEmptyExpiryClaim(false);
    validators.add(timestamps);
    validators.add(new JwtIssuerValidator(jwt.issuerUri()));
    validators.add(new JwtAudienceValidator(jwt.audience()));
    validators.add(token -> acceptedType(token, jwt.tokenTypes()));
    validators.add(JwtDecoders::notAnIdToken);
    validators.add(token -> principalIsUserId(token, principalClaim));
    decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<>(validators));
    return decoder;
  }

  /**
   * The {@code typ} header, if present, is one of {@code accepted} (compared as RFC 7515 says:
   * case-insensitively, with or without {@code application/}). Absent: a plain JWT (RFC 7519).
   */
  static OAuth2TokenValidatorResult acceptedType(Jwt token, List<String> accepted) {
    Object typ = token.getHeaders().get("typ");
    if (typ == null) {
      return OAuth2TokenValidatorResult.success();
    }
    String type = mediaType(typ.toString());
    for (String a : accepted) {
      if (mediaType(a).equals(type)) {
        return OAuth2TokenValidatorResult.success();
      }
    }
    return failure("token type is not accepted");
  }

  /**
   * OpenID Connect ID tokens say who logged in to a client; they are no access token for this API,
   * even when the client's id equals our audience. They carry {@code nonce}, {@code at_hash} or
   * {@code c_hash}; Keycloak also marks them with the claim {@code typ: ID}.
   */
  static OAuth2TokenValidatorResult notAnIdToken(Jwt token) {
    for (String claim : ID_TOKEN_CLAIMS) {
      if (token.hasClaim(claim)) {
        return failure("an ID token is not an access token");
      }
    }
    if ("ID".equalsIgnoreCase(String.valueOf(token.getClaims().get("typ")))) {
      return failure("an ID token is not an access token");
    }
    return OAuth2TokenValidatorResult.success();
  }

  /** The principal claim is the user id: it must follow the identifier grammar. */
  static OAuth2TokenValidatorResult principalIsUserId(Jwt token, String principalClaim) {
    Object value = token.getClaims().get(principalClaim);
    if (value instanceof String id && Identifiers.isValid(id)) {
      return OAuth2TokenValidatorResult.success();
    }
    return failure("principal claim is not a valid user id");
  }

  private static String mediaType(String type) {
    String t = type.trim().toLowerCase(Locale.ROOT);
    return t.startsWith("application/") ? t.substring("application/".length()) : t;
  }

  private static OAuth2TokenValidatorResult failure(String description) {
    return OAuth2TokenValidatorResult.failure(new OAuth2Error("invalid_token", description, null));
  }

  private static boolean isBlank(String s) {
    return s == null || s.isBlank();
  }
}
