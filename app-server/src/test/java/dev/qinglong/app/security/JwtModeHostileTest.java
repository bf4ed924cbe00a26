package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSObject;
import com.nimbusds.jose.Payload;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * JWT mode against a hostile client and a failing IdP: an anonymous flood of unknown {@code kid}s
 * costs at most one key-set fetch per cooldown and leaves a valid user served, also while the IdP
 * hangs; only {@code Bearer} authenticates; every 401 is the same problem document with a bare
 * {@code WWW-Authenticate: Bearer}; {@code sub} must be a JSON string, the payload must not start
 * with a byte-order mark, the lifetime is bounded; an IdP outage logs a few counted lines, never a
 * stack trace per request.
 *
 * <p>The key server is a JDK {@link HttpServer} on loopback that counts its fetches and can answer,
 * hang (until released) or fail. The app's cooldown is {@value #COOLDOWN_SECONDS} s so that a 5 s
 * flood spans several cooldowns; the bound asserted is "fetches ≤ elapsed / cooldown + 1".
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JwtModeHostileTest {
  static final String ISSUER = "https://idp.qinglong.test/realms/q";
  static final String AUDIENCE = "qinglong-api";
  static final String PROJECT = "jwt-hostile";
  static final String MEMBERS = "/v1/projects/" + PROJECT + "/members";
  static final int COOLDOWN_SECONDS = 2;
  static final int FLOOD_CONNECTIONS = 64;
  static final Duration FLOOD = Duration.ofSeconds(5);

  enum Idp {
    ANSWER,
    HANG,
    FAIL
  }

  @TempDir static Path dir;
  private HttpServer jwks;
  private final AtomicInteger fetches = new AtomicInteger();
  private final AtomicReference<Idp> idp = new AtomicReference<>(Idp.ANSWER);
  private volatile CountDownLatch hang = new CountDownLatch(0);
  private RSAKey key;
  private RSAKey stranger;
  private TestApp app;

  @BeforeAll
  void start() throws Exception {
    key = new RSAKeyGenerator(2048).keyID("k1").generate();
    stranger = new RSAKeyGenerator(2048).keyID("k1").generate(); // same kid, other key
    byte[] set = new JWKSet(key.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
    jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    jwks.setExecutor(Executors.newCachedThreadPool()); // a hanging fetch must not hide the next
    jwks.createContext(
        "/jwks",
        exchange -> {
          fetches.incrementAndGet();
          try {
            Idp mode = idp.get();
            if (mode == Idp.HANG) {
              hang.await(); // until the test releases it
            }
            if (mode == Idp.FAIL) {
              exchange.sendResponseHeaders(500, -1);
            } else {
              exchange.getResponseHeaders().add("Content-Type", "application/json");
              exchange.sendResponseHeaders(200, set.length);
              exchange.getResponseBody().write(set);
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (IOException e) {
            // the app gave up on a hanging fetch: nobody reads the answer
          } finally {
            exchange.close();
          }
        });
    jwks.start();
    Map<String, String> p = new HashMap<>();
    p.put("qinglong.auth.mode", "jwt");
    p.put("qinglong.auth.jwt.issuer-uri", ISSUER);
    p.put(
        "qinglong.auth.jwt.jwk-set-uri",
        "http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks");
    p.put("qinglong.auth.jwt.audience", AUDIENCE);
    p.put("qinglong.auth.jwt.key-set-refresh-cooldown", COOLDOWN_SECONDS + "s");
    p.put("qinglong.auth.jwt.key-set-fetch-timeout", "1s");
    app = TestApp.start(dir.resolve("app"), p);
    app.bean(OpenedStore.Catalog.class)
        .policy()
        .replaceMember(new ProjectMember(PROJECT, "alice", EnumSet.allOf(Permission.class)));
    Response warm = app.http.get(MEMBERS, valid());
    assertThat(warm.status()).as(warm.body()).isEqualTo(200);
  }

  @AfterAll
  void stop() {
    hang.countDown();
    if (app != null) {
      app.close();
    }
    jwks.stop(0);
  }

  @AfterEach
  void idpAnswersAgain() {
    idp.set(Idp.ANSWER);
    hang.countDown();
  }

  // ---- the unknown-kid flood -----------------------------------------------------------------

  @Test
  void anUnknownKidFloodCostsOneFetchPerCooldownAndTheValidUserIsServed() throws Exception {
    assertFloodIsHarmless(Idp.ANSWER);
  }

  @Test
  void anUnknownKidFloodWhileTheIdpHangsLeavesTheValidUserServed() throws Exception {
    hang = new CountDownLatch(1);
    assertFloodIsHarmless(Idp.HANG);
  }

  private void assertFloodIsHarmless(Idp mode) throws Exception {
    idp.set(mode);
    String user = valid();
    int before = fetches.get();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch rolling = new CountDownLatch(FLOOD_CONNECTIONS);
    ConcurrentMap<Integer, LongAdder> floodStatuses = new ConcurrentHashMap<>();
    ExecutorService flood = Executors.newFixedThreadPool(FLOOD_CONNECTIONS);
    long started = System.nanoTime();
    List<Future<?>> attackers = new ArrayList<>();
    for (int i = 0; i < FLOOD_CONNECTIONS; i++) {
      // Four connections per source address: under the per-client bound (16), so the flood is
      // limited by the process-wide slots alone, as one from many addresses would be.
      String source = "127.0.1." + (1 + i / 4);
      attackers.add(
          flood.submit(
              () -> {
                boolean counted = false;
                while (!stop.get()) {
                  int status;
                  try {
                    status =
                        RawClient.status(
                            RawClient.get(source, app.http.port(), MEMBERS, unknownKid(), null));
                  } catch (IOException e) {
                    status = -1;
                  }
                  floodStatuses.computeIfAbsent(status, s -> new LongAdder()).increment();
                  if (!counted) {
                    counted = true;
                    rolling.countDown();
                  }
                }
                return null;
              }));
    }
    assertThat(rolling.await(30, TimeUnit.SECONDS)).as("every flood connection answered").isTrue();
    int ok = 0;
    int total = 0;
    Map<Integer, Integer> userStatuses = new LinkedHashMap<>();
    long deadline = System.nanoTime() + FLOOD.toNanos();
    try {
      while (System.nanoTime() < deadline && total < 10_000) {
        Response r = app.http.get(MEMBERS, user);
        total++;
        userStatuses.merge(r.status(), 1, Integer::sum);
        if (r.status() / 100 == 2) {
          ok++;
        }
      }
    } finally {
      stop.set(true);
      flood.shutdown();
      assertThat(flood.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    }
    for (Future<?> a : attackers) {
      a.get();
    }
    long elapsed = System.nanoTime() - started;
    int fetched = fetches.get() - before;
    long cooldowns = elapsed / TimeUnit.SECONDS.toNanos(COOLDOWN_SECONDS);

    Map<Integer, Long> seen = new HashMap<>();
    floodStatuses.forEach((s, n) -> seen.put(s, n.sum()));
    System.out.printf(
        "flood idp=%s: user %s (%d of %d 2xx), flood %s, fetches %d in %d ms%n",
        mode, userStatuses, ok, total, seen, fetched, elapsed / 1_000_000);
    assertThat(total).as("valid requests sent").isGreaterThanOrEqualTo(10);
    assertThat(ok * 100)
        .as("valid user answered 2xx (%s of %s, statuses %s)", ok, total, userStatuses)
        .isGreaterThanOrEqualTo(95 * total);
    assertThat(fetched)
        .as("key-set fetches during the flood (%s cooldowns elapsed)", cooldowns)
        .isLessThanOrEqualTo((int) cooldowns + 1);
    // The flood spans more than a cooldown: at least one unknown kid found it over and fetched
    // (against the hanging IdP in that test), so the bound above is no accident of timing.
    assertThat(fetched).as("fetches during the flood").isGreaterThanOrEqualTo(1);
    assertThat(seen.keySet()).as("flood statuses %s", seen).isSubsetOf(401, 429, 503);
    assertThat(seen.getOrDefault(401, 0L)).as("flood statuses %s", seen).isPositive();
  }

  // ---- Bearer only, and every 401 alike -------------------------------------------------------

  @Test
  void theDpopSchemeIsNoWayInAndGetsTheSame401() throws Exception {
    String[] tokens = {valid(), expired(), "not-a-token"};
    for (String token : tokens) {
      Response r =
          app.http.send(
              app.http
                  .builder(MEMBERS, null)
                  .header("Authorization", "DPoP " + token)
                  .header("DPoP", token));
      assertUniform401(r);
    }
  }

  @Test
  void basicAndOtherSchemesGetTheSame401() {
    for (String authorization :
        List.of("Basic YWxpY2U6c2VjcmV0", "Token abc", "Digest username=\"alice\"", "Bearer")) {
      assertUniform401(
          app.http.send(app.http.builder(MEMBERS, null).header("Authorization", authorization)));
    }
  }

  @Test
  void everyRejectedTokenGetsTheSame401WithoutAReason() throws Exception {
    Instant now = Instant.now();
    Map<String, String> tokens = new LinkedHashMap<>();
    tokens.put("expired", expired());
    tokens.put("wrong audience", sign(key, claims("alice").audience("someone-else").build()));
    tokens.put(
        "issuer in other case",
        sign(key, claims("alice").issuer(ISSUER.toUpperCase(java.util.Locale.ROOT)).build()));
    tokens.put("issuer with a slash", sign(key, claims("alice").issuer(ISSUER + "/").build()));
    tokens.put("bad signature", sign(stranger, claims("alice").build()));
    tokens.put(
        "bad typ", sign(key, new JOSEObjectType("secevent+jwt"), "k1", claims("alice").build()));
    tokens.put("unknown kid", sign(stranger, null, "k-unknown", claims("alice").build()));
    tokens.put("numeric sub", sign(key, claims("alice").subject(null).claim("sub", 4711).build()));
    tokens.put("byte-order mark", withByteOrderMark(claims("alice").build()));
    tokens.put(
        "exp in year 9999",
        sign(
            key,
            claims("alice")
                .expirationTime(Date.from(Instant.parse("9999-12-31T23:59:59Z")))
                .build()));
    tokens.put(
        "exp beyond the maximum lifetime",
        sign(
            key,
            claims("alice").expirationTime(Date.from(now.plus(Duration.ofHours(25)))).build()));
    tokens.put("sub not an identifier", sign(key, claims("alice smith").build()));
    tokens.put("malformed", "abc.def");
    tokens.put("garbage", "x".repeat(40));
    // Every case on its own (soft): a regression names each token it lets through.
    SoftAssertions soft = new SoftAssertions();
    String first = app.http.get(MEMBERS, "garbage").comparableBody();
    for (Map.Entry<String, String> t : tokens.entrySet()) {
      Response r = app.http.get(MEMBERS, t.getValue());
      soft.assertThat(r.status()).as(t.getKey() + ": " + r.body()).isEqualTo(401);
      soft.assertThat(r.raw().headers().allValues("WWW-Authenticate"))
          .as(t.getKey())
          .containsExactly("Bearer");
      soft.assertThat(r.comparableBody()).as(t.getKey()).isEqualTo(first);
    }
    soft.assertAll();
    for (String token : tokens.values()) {
      assertUniform401(app.http.get(MEMBERS, token));
    }
    // The same claims, valid: each refusal above is the one thing changed.
    assertThat(app.http.get(MEMBERS, valid()).status()).isEqualTo(200);
    assertThat(
            app.http
                .get(
                    MEMBERS,
                    sign(
                        key,
                        claims("alice")
                            .expirationTime(Date.from(now.plus(Duration.ofHours(23))))
                            .build()))
                .status())
        .as("a token within the maximum lifetime")
        .isEqualTo(200);
  }

  @Test
  void aValidTokenIsServed() throws Exception {
    Response r = app.http.get(MEMBERS, valid());
    assertThat(r.status()).as(r.body()).isEqualTo(200);
  }

  // ---- an IdP outage logs a few counted lines, never a trace per request -----------------------

  @Test
  void anIdpOutageLogsCountedLinesAndNoStackTraces() throws Exception {
    idp.set(Idp.FAIL);
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    root.addAppender(logs);
    int before = fetches.get();
    int requests = 0;
    try {
      // Unknown kids until one finds the cooldown over and the fetch fails (bounded), then more.
      while (fetches.get() == before && requests < 20_000) {
        assertThat(app.http.get(MEMBERS, unknownKid()).status()).isEqualTo(401);
        requests++;
      }
      assertThat(fetches.get()).as("a fetch reached the failing IdP").isGreaterThan(before);
      for (int i = 0; i < 50; i++) {
        assertThat(app.http.get(MEMBERS, unknownKid()).status()).isEqualTo(401);
        requests++;
      }
    } finally {
      root.detachAppender(logs);
    }
    List<ILoggingEvent> events = List.copyOf(logs.list);
    List<ILoggingEvent> loud =
        events.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).toList();
    assertThat(events).as("no stack trace").allMatch(e -> e.getThrowableProxy() == null);
    assertThat(events)
        .as("no stack trace in a message")
        .noneMatch(e -> e.getFormattedMessage().contains("\tat "));
    assertThat(loud.size())
        .as("%s requests, WARN or ERROR lines: %s", requests, loud)
        .isLessThanOrEqualTo(4);
    assertThat(loud)
        .as("the outage is logged, with a count")
        .anyMatch(e -> e.getFormattedMessage().contains("auth.failure kind="));
    assertThat(loud).noneMatch(e -> e.getLevel() == Level.ERROR);
  }

  // ---- helpers -----------------------------------------------------------------------------

  static void assertUniform401(Response r) {
    assertThat(r.status()).as(r.body()).isEqualTo(401);
    assertThat(r.contentType()).startsWith("application/problem+json");
    assertThat(r.code()).isEqualTo("unauthenticated");
    assertThat(r.raw().headers().allValues("WWW-Authenticate")).containsExactly("Bearer");
    r.raw()
        .headers()
        .map()
        .forEach(
            (name, values) ->
                assertThat(values)
                    .as(name)
                    .noneMatch(v -> v.contains("error") || v.toLowerCase().contains("dpop")));
    assertThat(r.body()).doesNotContain("error_description", "expired", "Jwt", "kid", "signature");
  }

  JWTClaimsSet.Builder claims(String subject) {
    Instant now = Instant.now();
    return new JWTClaimsSet.Builder()
        .subject(subject)
        .issuer(ISSUER)
        .audience(List.of(AUDIENCE))
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plusSeconds(300)));
  }

  String valid() throws Exception {
    return sign(key, claims("alice").build());
  }

  String expired() throws Exception {
    Instant past = Instant.now().minus(Duration.ofHours(2));
    return sign(
        key,
        claims("alice")
            .issueTime(Date.from(past))
            .expirationTime(Date.from(past.plusSeconds(60)))
            .build());
  }

  static String sign(RSAKey signer, JWTClaimsSet claims) throws Exception {
    return sign(signer, new JOSEObjectType("at+jwt"), "k1", claims);
  }

  static String sign(RSAKey signer, JOSEObjectType type, String kid, JWTClaimsSet claims)
      throws Exception {
    JWSHeader.Builder header = new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(kid);
    if (type != null) {
      header.type(type);
    }
    SignedJWT jwt = new SignedJWT(header.build(), claims);
    jwt.sign(new RSASSASigner(signer));
    return jwt.serialize();
  }

  /** A correctly signed token whose payload is the claims' JSON after a UTF-8 byte-order mark. */
  String withByteOrderMark(JWTClaimsSet claims) throws Exception {
    byte[] json = claims.toString().getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[json.length + 3];
    payload[0] = (byte) 0xEF;
    payload[1] = (byte) 0xBB;
    payload[2] = (byte) 0xBF;
    System.arraycopy(json, 0, payload, 3, json.length);
    JWSObject jws =
        new JWSObject(
            new JWSHeader.Builder(JWSAlgorithm.RS256)
                .keyID("k1")
                .type(new JOSEObjectType("at+jwt"))
                .build(),
            new Payload(payload));
    jws.sign(new RSASSASigner(key));
    return jws.serialize();
  }

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String FLOOD_CLAIMS =
      Base64URL.encode(
              "{\"sub\":\"mallory\",\"iss\":\"" + ISSUER + "\",\"aud\":\"" + AUDIENCE + "\"}")
          .toString();

  /** An anonymous token with a fresh random {@code kid} (signature garbage: never reached). */
  static String unknownKid() {
    String header = "{\"alg\":\"RS256\",\"typ\":\"at+jwt\",\"kid\":\"" + UUID.randomUUID() + "\"}";
    byte[] signature = new byte[256];
    RANDOM.nextBytes(signature);
    return Base64URL.encode(header) + "." + FLOOD_CLAIMS + "." + Base64URL.encode(signature);
  }
}
