package dev.qinglong.app.http.security;

import dev.qinglong.app.platform.QingLongProperties;
import dev.qinglong.core.model.Identifiers;
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

  static NimbusJwtDecoder build(QingLongProperties.Jwt jwt) {
    boolean hasJwks = jwt.getJwkSetUri() != null && !jwt.getJwkSetUri().isBlank();
    boolean hasIssuer = jwt.getIssuerUri() != null && !jwt.getIssuerUri().isBlank();
    if (!hasJwks && !hasIssuer) {
      throw new IllegalStateException(
          "qinglong.auth.mode=jwt needs qinglong.auth.jwt.jwk-set-uri or"
              + " qinglong.auth.jwt.issuer-uri");
    }
    if (jwt.getAudience() == null || jwt.getAudience().isBlank()) {
      throw new IllegalStateException("qinglong.auth.mode=jwt needs qinglong.auth.jwt.audience");
    }
    NimbusJwtDecoder decoder =
        hasJwks
            ? NimbusJwtDecoder.withJwkSetUri(jwt.getJwkSetUri()).build()
            : NimbusJwtDecoder.withIssuerLocation(jwt.getIssuerUri()).build();

    List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
    JwtTimestampValidator timestamps = new JwtTimestampValidator(jwt.getClockSkew());
    timestamps.setAllowEmptyExpiryClaim(false);
    validators.add(timestamps);
    if (hasIssuer) {
      validators.add(new JwtIssuerValidator(jwt.getIssuerUri()));
    }
    validators.add(new JwtAudienceValidator(jwt.getAudience()));
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
