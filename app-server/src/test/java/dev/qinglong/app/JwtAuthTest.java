package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** qinglong.auth.mode=jwt: OAuth2 resource server with issuer, JWKS and audience checks. */
class JwtAuthTest {
  static final String ISSUER = "https://idp.qinglong.test";
  static final String AUDIENCE = "qinglong-api";

  @TempDir static Path dataDir;
  static HttpServer jwks;
  static RSAKey key;
  static RSAKey otherKey;
  static TestApp app;

  @BeforeAll
  static void start() throws Exception {
    key = new RSAKeyGenerator(2048).keyID("k1").generate();
    otherKey = new RSAKeyGenerator(2048).keyID("k1").generate();
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
    app =
        TestApp.start(
            dataDir,
            Map.of(
                "qinglong.auth.mode",
                "jwt",
                "qinglong.auth.jwt.issuer-uri",
                ISSUER,
                "qinglong.auth.jwt.jwk-set-uri",
                "http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks",
                "qinglong.auth.jwt.audience",
                AUDIENCE,
                // No global admin by default in jwt mode: the documented bootstrap names one.
                "qinglong.auth.global-admins",
                "admin"));
  }

  @AfterAll
  static void stop() {
    app.close();
    jwks.stop(0);
  }

  static JWTClaimsSet.Builder claims(String subject) {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder()
        .subject(subject)
        .issuer(ISSUER)
        .audience(List.of(AUDIENCE))
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(300)));
  }

  static String sign(RSAKey with, JWTClaimsSet claims) throws Exception {
    SignedJWT jwt =
        new SignedJWT(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID(with.getKeyID())
                .type(JOSEObjectType.JWT)
                .build(),
            claims);
    jwt.sign(new RSASSASigner(with));
    return jwt.serialize();
  }

  static String token(String subject) throws Exception {
    return sign(key, claims(subject).build());
  }

  @Test
  void validTokensAuthenticateTheSubjectAsTheUser() throws Exception {
    Response put =
        app.http.put(
            "/v1/projects/jwt-demo/members/alice",
            token("admin"),
            "{\"permissions\":[\"package.manage\"]}");
    assertThat(put.status()).as(put.body()).isEqualTo(200);
    Response propose =
        app.http.post(
            ApiContract.proposals("jwt-demo"),
            token("alice"),
            ApiContract.installJson("jwt-1", "left-pad"));
    assertThat(propose.status()).as(propose.body()).isEqualTo(201);
    assertThat(propose.json().get("proposedBy").asString()).isEqualTo("alice");
    ApiContract.assertProblem(
        app.http.post(
            ApiContract.proposals("jwt-demo"),
            token("bob"),
            ApiContract.installJson("jwt-2", "left-pad")),
        403,
        "forbidden");
    // No dev-tokens file in jwt mode.
    assertThat(Files.exists(dataDir.resolve("dev-tokens.properties"))).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "expired",
        "wrong issuer",
        "wrong audience",
        "unsigned alg=none",
        "wrong key",
        "no expiry",
        "subject not an identifier",
        "garbage"
      })
  void badTokensAre401(String kind) throws Exception {
    String bad =
        switch (kind) {
          case "expired" ->
              sign(
                  key,
                  claims("alice")
                      .issueTime(Date.from(Instant.now().minusSeconds(7200)))
                      .expirationTime(Date.from(Instant.now().minusSeconds(3600)))
                      .build());
          case "wrong issuer" -> sign(key, claims("alice").issuer("https://evil.test").build());
          case "wrong audience" -> sign(key, claims("alice").audience("someone-else").build());
          case "unsigned alg=none" -> new PlainJWT(claims("alice").build()).serialize();
          case "wrong key" -> sign(otherKey, claims("alice").build());
          case "no expiry" -> sign(key, claims("alice").expirationTime(null).build());
          case "subject not an identifier" -> sign(key, claims("alice smith").build());
          default -> "not.a.jwt";
        };
    Response r =
        app.http.post(
            ApiContract.proposals("jwt-demo"), bad, ApiContract.installJson("jwt-bad", "x"));
    ApiContract.assertProblem(r, 401, "unauthenticated");
    assertThat(r.body()).doesNotContain("expired", "issuer", "audience", "signature");
  }
}
