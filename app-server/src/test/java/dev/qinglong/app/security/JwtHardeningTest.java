package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JWT mode: no implicit global admin, the issuer is required, clock skew is bounded, {@code typ} is
 * checked (ID tokens are refused), accepted algorithms and the principal claim come from Spring
 * Boot's {@code spring.security.oauth2.resourceserver.jwt.*}.
 */
class JwtHardeningTest {
  static final String ISSUER = "https://idp.qinglong.test";
  static final String AUDIENCE = "qinglong-api";
  static final String PROPOSALS = "/v1/projects/jwt-hard/plugin-packages/proposals";

  @TempDir static Path dir;
  static HttpServer jwks;
  static RSAKey key;
  static TestApp app;

  @BeforeAll
  static void start() throws Exception {
    key = new RSAKeyGenerator(2048).keyID("k1").generate();
    byte[] set = new JWKSet(key.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
    jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    jwks.createContext(
        "/jwks",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, set.length);
          exchange.getResponseBody().write(set);
          exchange.close();
        });
    jwks.start();
    Map<String, String> p = jwtProperties();
    p.put("spring.security.oauth2.resourceserver.jwt.jws-algorithms", "RS256,RS512");
    p.put("spring.security.oauth2.resourceserver.jwt.principal-claim-name", "uid");
    app = TestApp.start(dir.resolve("app"), p);
    app.bean(OpenedStore.Catalog.class)
        .policy()
        .replaceMember(
            new ProjectMember(
                "jwt-hard",
                "alice",
                EnumSet.of(Permission.PACKAGE_MANAGE, Permission.PACKAGE_READ)));
  }

  static Map<String, String> jwtProperties() {
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.auth.mode", "jwt");
    p.put("qinglong.auth.jwt.issuer-uri", ISSUER);
    p.put(
        "qinglong.auth.jwt.jwk-set-uri",
        "http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks");
    p.put("qinglong.auth.jwt.audience", AUDIENCE);
    return p;
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    jwks.stop(0);
  }

  /** Claims of user {@code uid} (subject and principal claim). */
  static JWTClaimsSet.Builder claims(String uid) {
    return claims(uid, uid);
  }

  static JWTClaimsSet.Builder claims(String subject, String uid) {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder()
        .subject(subject)
        .claim("uid", uid)
        .issuer(ISSUER)
        .audience(List.of(AUDIENCE))
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(300)));
  }

  static String sign(JWSAlgorithm alg, JOSEObjectType type, JWTClaimsSet claims) throws Exception {
    JWSHeader.Builder header = new JWSHeader.Builder(alg).keyID(key.getKeyID());
    if (type != null) {
      header.type(type);
    }
    SignedJWT jwt = new SignedJWT(header.build(), claims);
    jwt.sign(new RSASSASigner(key));
    return jwt.serialize();
  }

  static Response propose(String token, String ref) {
    return app.http.post(
        PROPOSALS,
        token,
        "{\"actionRef\":\""
            + ref
            + "\",\"action\":{\"type\":\"install\",\"package\":\"p\",\"version\":\"1.0.0\","
            + "\"artifactDigest\":\"sha256:"
            + "ab".repeat(32)
            + "\"}}");
  }

  static void assertUnauthenticated(Response r) {
    assertThat(r.status()).as(r.body()).isEqualTo(401);
    assertThat(r.code()).isEqualTo("unauthenticated");
  }

  @Test
  void thePrincipalIsTheConfiguredClaim() throws Exception {
    // The IdP's subject is an opaque id; the user id is the configured claim.
    Response r =
        propose(
            sign(
                JWSAlgorithm.RS256,
                new JOSEObjectType("at+jwt"),
                claims("00u1f2e3d4c5b6a7", "alice").build()),
            "claim-1");
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    assertThat(r.json().get("proposedBy").asString()).isEqualTo("alice");
  }

  @Test
  void aUserNamedAdminAtTheIdpIsNoGlobalAdminByDefault() throws Exception {
    // Whoever registers "admin" at the IdP (subject and principal claim alike).
    String admin =
        sign(JWSAlgorithm.RS256, new JOSEObjectType("at+jwt"), claims("admin", "admin").build());
    Response r =
        app.http.put(
            "/v1/projects/jwt-hard/members/mallory",
            admin,
            "{\"permissions\":[\"project.admin\"]}");
    assertThat(r.status()).as(r.body()).isEqualTo(403);
  }

  @Test
  void theConfiguredAlgorithmsAndOnlyThoseAreAccepted() throws Exception {
    Response rs512 =
        propose(
            sign(JWSAlgorithm.RS512, new JOSEObjectType("at+jwt"), claims("alice").build()),
            "alg-1");
    assertThat(rs512.status()).as(rs512.body()).isEqualTo(201);
    assertUnauthenticated(
        propose(
            sign(JWSAlgorithm.PS256, new JOSEObjectType("at+jwt"), claims("alice").build()),
            "alg-2"));
  }

  @Test
  void accessTokenTypesPassOtherTypesAndIdTokensAre401() throws Exception {
    assertThat(
            propose(sign(JWSAlgorithm.RS256, JOSEObjectType.JWT, claims("alice").build()), "t1")
                .status())
        .isEqualTo(201);
    assertThat(propose(sign(JWSAlgorithm.RS256, null, claims("alice").build()), "t2").status())
        .isEqualTo(201);
    assertUnauthenticated(
        propose(
            sign(JWSAlgorithm.RS256, new JOSEObjectType("secevent+jwt"), claims("alice").build()),
            "t3"));
    assertUnauthenticated(
        propose(
            sign(JWSAlgorithm.RS256, new JOSEObjectType("logout+jwt"), claims("alice").build()),
            "t4"));
    // An OpenID Connect ID token for a client whose id is our audience: typ JWT, but ID-token
    // claims (at_hash, nonce) give it away.
    assertUnauthenticated(
        propose(
            sign(
                JWSAlgorithm.RS256,
                JOSEObjectType.JWT,
                claims("alice").claim("nonce", "n-1").claim("at_hash", "x7Kq").build()),
            "t5"));
    // Keycloak marks its ID tokens with a "typ" claim.
    assertUnauthenticated(
        propose(
            sign(
                JWSAlgorithm.RS256, JOSEObjectType.JWT, claims("alice").claim("typ", "ID").build()),
            "t6"));
  }

  @Test
  void tokensWithoutTheIssuerAre401() throws Exception {
    assertUnauthenticated(
        propose(
            sign(
                JWSAlgorithm.RS256,
                new JOSEObjectType("at+jwt"),
                claims("alice").issuer(null).build()),
            "iss-1"));
  }

  @Test
  void jwtModeRefusesToStartWithoutAnIssuerOrWithAnUnboundedClockSkew() {
    Map<String, String> noIssuer = jwtProperties();
    noIssuer.remove("qinglong.auth.jwt.issuer-uri");
    assertThatThrownBy(() -> TestApp.start(dir.resolve("no-issuer"), noIssuer).close())
        .hasStackTraceContaining("qinglong.auth.jwt.issuer-uri");
    Map<String, String> skew = jwtProperties();
    skew.put("qinglong.auth.jwt.clock-skew", "1h");
    assertThatThrownBy(() -> TestApp.start(dir.resolve("skew"), skew).close())
        .hasStackTraceContaining("clock-skew");
  }
}
