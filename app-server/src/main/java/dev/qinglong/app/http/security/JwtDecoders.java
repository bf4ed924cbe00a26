package dev.qinglong.app.http.security;

import dev.qinglong.core.kernel.Identifiers;
import java.util.ArrayList;
import java.util.List;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/** Builds the JWT decoder of {@code qinglong.auth.mode=jwt}. */
final class JwtDecoders {
  private JwtDecoders() {}

  static NimbusJwtDecoder build(AuthProperties.Jwt jwt) {
    boolean hasJwks = jwt.jwkSetUri() != null && !jwt.jwkSetUri().isBlank();
    boolean hasIssuer = jwt.issuerUri() != null && !jwt.issuerUri().isBlank();
    if (!hasJwks && !hasIssuer) {
      throw new IllegalStateException(
          "qinglong.auth.mode=jwt needs qinglong.auth.jwt.jwk-set-uri or"
              + " qinglong.auth.jwt.issuer-uri");
    }
    if (jwt.audience() == null || jwt.audience().isBlank()) {
      throw new IllegalStateException("qinglong.auth.mode=jwt needs qinglong.auth.jwt.audience");
    }
    NimbusJwtDecoder decoder =
        hasJwks
            ? NimbusJwtDecoder.withJwkSetUri(jwt.jwkSetUri()).build()
            : NimbusJwtDecoder.withIssuerLocation(jwt.issuerUri()).build();

    List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
    JwtTimestampValidator timestamps = new JwtTimestampValidator(jwt.clockSkew());
    timestamps.setAllowEmptyExpiryClaim(false);
    validators.add(timestamps);
    if (hasIssuer) {
      validators.add(new JwtIssuerValidator(jwt.issuerUri()));
    }
    validators.add(new JwtAudienceValidator(jwt.audience()));
    validators.add(JwtDecoders::subjectIsUserId);
    decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<>(validators));
    return decoder;
  }

  /** The subject is the user id: it must follow the identifier grammar. */
  static OAuth2TokenValidatorResult subjectIsUserId(Jwt token) {
    if (Identifiers.isValid(token.getSubject())) {
      return OAuth2TokenValidatorResult.success();
    }
    return OAuth2TokenValidatorResult.failure(
        new OAuth2Error("invalid_token", "subject is not a valid user id", null));
  }
}
