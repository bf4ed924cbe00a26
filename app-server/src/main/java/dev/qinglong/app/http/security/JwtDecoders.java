package dev.qinglong.app.http.security;

import com.nimbusds.jose.jwk.source.JWKSetSource;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.URLBasedJWKSetSource;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jose.util.JSONObjectUtils;
import com.nimbusds.jose.util.ResourceRetriever;
import dev.qinglong.core.kernel.Identifiers;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.SignatureAlgorithm;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtAudienceValidator;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * Builds the JWT decoder of {@code qinglong.auth.mode=jwt}: signature with an accepted algorithm
 * from the issuer's keys (fetched at most once per cooldown, see {@link #keySource}), then expiry
 * (bounded skew), lifetime (at most {@code max-token-lifetime} ahead), exact issuer, audience,
 * token type (no ID tokens) and a principal claim (and {@code sub}) that is a JSON string and the
 * principal a valid user id.
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
  static Guarded build(AuthProperties.Jwt jwt, List<String> algorithms, String principalClaim) {
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
    JWKSource<SecurityContext> keys = keySource(jwt);
    NimbusJwtDecoder nimbus =
        NimbusJwtDecoder.withJwkSource(keys)
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
    validators.add(token -> lifetimeWithin(token, jwt.maxTokenLifetime().plus(jwt.clockSkew())));
    validators.add(token -> exactIssuer(token, jwt.issuerUri()));
    validators.add(new JwtAudienceValidator(jwt.audience()));
    validators.add(token -> acceptedType(token, jwt.tokenTypes()));
    validators.add(JwtDecoders::notAnIdToken);
    validators.add(token -> principalIsUserId(token, principalClaim));
    nimbus.setJwtValidator(new DelegatingOAuth2TokenValidator<>(validators));
    return new Guarded(
        nimbus, keys, principalClaim, new AuthFailureLog(AuthFailureLog.DEFAULT_INTERVAL));
  }

  /**
   * The issuer's keys: Nimbus' cache (5 minutes, refreshed ahead of expiry in the background) over
   * {@link CooldownJwkSetSource} (one fetch per cooldown, bounded in time). A request never waits
   * for another request's fetch (refresh timeout 0): while one runs, a token with an unknown {@code
   * kid} is refused at once.
   */
  static JWKSource<SecurityContext> keySource(AuthProperties.Jwt jwt) {
    int timeoutMs = (int) jwt.keySetFetchTimeout().toMillis();
    ResourceRetriever retriever =
        new DefaultResourceRetriever(
            timeoutMs, timeoutMs, JWKSourceBuilder.DEFAULT_HTTP_SIZE_LIMIT);
    JWKSetSource<SecurityContext> remote;
    if (isBlank(jwt.jwkSetUri())) {
      remote = new DiscoveredJwkSetSource(jwt.issuerUri(), retriever);
    } else {
      try {
        remote = new URLBasedJWKSetSource<>(URI.create(jwt.jwkSetUri()).toURL(), retriever);
      } catch (IllegalArgumentException | java.net.MalformedURLException e) {
        throw new IllegalStateException("qinglong.auth.jwt.jwk-set-uri is not a URL", e);
      }
    }
    return JWKSourceBuilder.create(
            new CooldownJwkSetSource(remote, jwt.keySetRefreshCooldown(), jwt.keySetFetchTimeout()))
        .rateLimited(false)
        .retrying(false)
        .outageTolerant(false)
        .cache(CACHE_TIME_TO_LIVE.toMillis(), 0)
        .refreshAheadCache(REFRESH_AHEAD.toMillis(), false)
        .build();
  }

  /** How long fetched keys are used before they are fetched again. */
  static final Duration CACHE_TIME_TO_LIVE = Duration.ofMinutes(5);

  /** How long before expiry the cache is refreshed in the background. */
  static final Duration REFRESH_AHEAD = Duration.ofSeconds(30);

  /**
   * The decoder as the resource server sees it: refuses a token whose header or payload JSON starts
   * with a byte-order mark before anything else, and turns every failure that is not the token's
   * (key set unavailable, in cooldown, timed out) into an invalid token (401, the same as any
   * other) plus one throttled log line, instead of an {@code AuthenticationServiceException} that
   * would escape the filter chain and log a stack trace per request.
   */
  static final class Guarded implements JwtDecoder, AutoCloseable {
    private final JwtDecoder decoder;
    private final Object keys;
    private final List<String> stringClaims;
    private final AuthFailureLog failures;

    Guarded(JwtDecoder decoder, Object keys, String principalClaim, AuthFailureLog failures) {
      this.decoder = decoder;
      this.keys = keys;
      this.stringClaims =
          List.copyOf(new LinkedHashSet<>(List.of(JwtClaimNames.SUB, principalClaim)));
      this.failures = failures;
    }

    @Override
    public Jwt decode(String token) throws JwtException {
      if (startsWithByteOrderMark(token)) {
        throw new BadJwtException("invalid token");
      }
      Jwt jwt;
      try {
        jwt = decoder.decode(token);
      } catch (BadJwtException e) {
        throw e;
      } catch (JwtException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
          root = root.getCause();
        }
        failures.failure(root.getClass().getSimpleName(), detail(root));
        throw new BadJwtException("invalid token");
      }
      if (!claimsAreJsonStrings(token, stringClaims)) {
        throw new BadJwtException("invalid token");
      }
      return jwt;
    }

    /** Stops the key source's worker threads (refresh-ahead, fetch) with the application. */
    @Override
    public void close() throws Exception {
      if (keys instanceof AutoCloseable c) {
        c.close();
      }
    }
  }

  /** An exception's class and message for one log line: one line, at most 200 characters. */
  static String detail(Throwable t) {
    String d = t.getClass().getName() + ": " + t.getMessage();
    d = d.length() > 200 ? d.substring(0, 200) + "…" : d;
    return d.replaceAll("\\p{Cntrl}", "?");
  }

  /**
   * Whether each of {@code names} that the (verified) token's payload has is a JSON string there.
   * Nimbus reads a numeric {@code sub} as its decimal string, so the decoded claims cannot tell.
   */
  static boolean claimsAreJsonStrings(String token, List<String> names) {
    int first = token.indexOf('.');
    int second = token.indexOf('.', first + 1);
    if (first < 0 || second < 0) {
      return false;
    }
    try {
      Map<String, Object> raw =
          JSONObjectUtils.parse(new Base64URL(token.substring(first + 1, second)).decodeToString());
      for (String name : names) {
        Object value = raw.get(name);
        if (value != null && !(value instanceof String)) {
          return false;
        }
      }
      return true;
    } catch (java.text.ParseException e) {
      return false;
    }
  }

  /** Whether the header or the payload of a compact JWS is JSON preceded by a UTF-8 BOM. */
  static boolean startsWithByteOrderMark(String token) {
    if (token == null) {
      return false;
    }
    int first = token.indexOf('.');
    if (first < 0) {
      return false;
    }
    int second = token.indexOf('.', first + 1);
    return bom(token, 0) || (second > first && bom(token, first + 1));
  }

  /** The segment at {@code from} begins with the base64url of EF BB BF ("77u/" or "77u_"). */
  private static boolean bom(String token, int from) {
    return token.startsWith("77u_", from) || token.startsWith("77u/", from);
  }

  /** {@code exp} lies at most {@code max} beyond now (a year-9999 token is no access token). */
  static OAuth2TokenValidatorResult lifetimeWithin(Jwt token, Duration max) {
    Instant exp = token.getExpiresAt();
    if (exp != null && exp.isAfter(Instant.now().plus(max))) {
      return failure("token lifetime exceeds the maximum");
    }
    return OAuth2TokenValidatorResult.success();
  }

  /** {@code iss} is a JSON string equal to the configured issuer, character for character. */
  static OAuth2TokenValidatorResult exactIssuer(Jwt token, String issuer) {
    Object iss = token.getClaims().get(JwtClaimNames.ISS);
    if (iss instanceof String s && s.equals(issuer)) {
      return OAuth2TokenValidatorResult.success();
    }
    return failure("wrong issuer");
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
