package dev.qinglong.app.http.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.jwk.source.JWKSetSource;
import com.nimbusds.jose.jwk.source.JWKSetUnavailableException;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The JWT key set in isolation: it is fetched once per cooldown whatever the number of concurrent
 * callers, a hanging fetch is given up after the timeout, discovery takes only the exact issuer,
 * and failures are logged once per kind per interval with a count.
 */
class KeySetCooldownTest {

  /** A remote key set that counts its fetches and blocks on {@code gate} while it is closed. */
  static final class Remote implements JWKSetSource<SecurityContext> {
    final AtomicInteger fetches = new AtomicInteger();
    final CountDownLatch gate;

    Remote(CountDownLatch gate) {
      this.gate = gate;
    }

    @Override
    public JWKSet getJWKSet(
        com.nimbusds.jose.jwk.source.JWKSetCacheRefreshEvaluator e, long t, SecurityContext c)
        throws KeySourceException {
      fetches.incrementAndGet();
      try {
        gate.await();
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new JWKSetUnavailableException("interrupted", ex);
      }
      return new JWKSet();
    }

    @Override
    public void close() {}
  }

  @Test
  void sixtyFourConcurrentCallersCauseOneFetchPerCooldown() throws Exception {
    Remote remote = new Remote(new CountDownLatch(0));
    CooldownJwkSetSource source =
        new CooldownJwkSetSource(remote, Duration.ofHours(1), Duration.ofSeconds(5));
    ExecutorService pool = Executors.newFixedThreadPool(64);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Boolean>> calls = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      calls.add(
          pool.submit(
              () -> {
                go.await();
                try {
                  source.getJWKSet(null, 0, null);
                  return true;
                } catch (RateLimitReachedException e) {
                  return false;
                }
              }));
    }
    go.countDown();
    int fetched = 0;
    for (Future<Boolean> f : calls) {
      fetched += f.get(30, TimeUnit.SECONDS) ? 1 : 0;
    }
    pool.shutdown();
    assertThat(fetched).isEqualTo(1);
    assertThat(remote.fetches.get()).isEqualTo(1);
    source.close();
  }

  @Test
  void aHangingFetchIsGivenUpAndTheNextCallerIsRefusedAtOnce() throws Exception {
    CountDownLatch hang = new CountDownLatch(1);
    Remote remote = new Remote(hang);
    CooldownJwkSetSource source =
        new CooldownJwkSetSource(remote, Duration.ofHours(1), Duration.ofMillis(100));
    try {
      assertThatThrownBy(() -> source.getJWKSet(null, 0, null))
          .isInstanceOf(JWKSetUnavailableException.class)
          .hasMessageContaining("exceeded");
      // Within the cooldown: refused without touching the (still hanging) IdP.
      assertThatThrownBy(() -> source.getJWKSet(null, 0, null))
          .isInstanceOf(RateLimitReachedException.class);
      assertThat(remote.fetches.get()).isEqualTo(1);
    } finally {
      hang.countDown();
      source.close();
    }
  }

  @Test
  void withoutAJwkSetUriTheKeysAreFoundByDiscoveryOfTheExactIssuer() throws Exception {
    RSAKey key = new RSAKeyGenerator(2048).keyID("d1").generate();
    HttpServer idp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    String base = "http://127.0.0.1:" + idp.getAddress().getPort();
    AtomicReference<String> named = new AtomicReference<>(base + "/realm");
    idp.createContext(
        "/realm/.well-known/openid-configuration",
        exchange ->
            answer(
                exchange,
                "{\"issuer\":\"" + named.get() + "\",\"jwks_uri\":\"" + base + "/keys\"}"));
    idp.createContext(
        "/keys", exchange -> answer(exchange, new JWKSet(key.toPublicJWK()).toString()));
    idp.start();
    try {
      DiscoveredJwkSetSource source =
          new DiscoveredJwkSetSource(base + "/realm", new DefaultResourceRetriever(1000, 1000));
      assertThat(source.getJWKSet(null, 0, null).getKeyByKeyId("d1")).isNotNull();
      named.set(base + "/REALM");
      assertThatThrownBy(
              () ->
                  new DiscoveredJwkSetSource(
                          base + "/realm", new DefaultResourceRetriever(1000, 1000))
                      .getJWKSet(null, 0, null))
          .isInstanceOf(JWKSetUnavailableException.class)
          .hasMessageContaining("another issuer");
    } finally {
      idp.stop(0);
    }
  }

  private static void answer(HttpExchange exchange, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
  }

  @Test
  void failuresAreLoggedOncePerKindPerIntervalWithACount() {
    AtomicLong now = new AtomicLong();
    AuthFailureLog log = new AuthFailureLog(Duration.ofMinutes(1), now::get);
    int lines = 0;
    for (int i = 0; i < 1000; i++) {
      lines += log.failure("SocketTimeoutException", "Read timed out") ? 1 : 0;
      lines += log.failure("RateLimitReachedException", "cooldown") ? 1 : 0;
    }
    assertThat(lines).as("one line per kind").isEqualTo(2);
    now.addAndGet(Duration.ofSeconds(59).toNanos());
    assertThat(log.failure("SocketTimeoutException", "Read timed out")).isFalse();
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    assertThat(log.failure("SocketTimeoutException", "Read timed out")).isTrue();
  }
}
