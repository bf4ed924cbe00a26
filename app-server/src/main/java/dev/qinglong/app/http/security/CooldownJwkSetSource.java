package dev.qinglong.app.http.security;

import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.JWKSetCacheRefreshEvaluator;
import com.nimbusds.jose.jwk.source.JWKSetSource;
import com.nimbusds.jose.jwk.source.JWKSetUnavailableException;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.SecurityContext;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The remote JWK set, fetched at most once per cooldown for the whole process and never awaited
 * longer than the fetch timeout.
 *
 * <p>It sits under Nimbus' cache ({@code JWKSourceBuilder}, which decides when a refresh is due:
 * expiry, refresh-ahead, a {@code kid} not in the cached set). It replaces the builder's own rate
 * limiter because that one lets two fetches through per interval (it opens with a spare one), and
 * the contract is one; and it adds a bound on the whole fetch, where the HTTP client's timeouts
 * bound each read only (an IdP that drips one byte a second would hold the request for minutes).
 *
 * <p>The fetch runs on one worker thread: a fetch still hanging when the next is due makes the next
 * one wait in the queue (and time out), never a second thread.
 */
final class CooldownJwkSetSource implements JWKSetSource<SecurityContext> {
  private final JWKSetSource<SecurityContext> remote;
  private final long cooldownNanos;
  private final Duration timeout;
  private final ThreadPoolExecutor fetcher;

  /** Monotonic time of the last fetch; guarded by {@code this}. */
  private long lastFetch;

  private boolean fetched;

  CooldownJwkSetSource(JWKSetSource<SecurityContext> remote, Duration cooldown, Duration timeout) {
    this.remote = remote;
    this.cooldownNanos = cooldown.toNanos();
    this.timeout = timeout;
    this.fetcher =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "qinglong-jwk-set-fetch");
              t.setDaemon(true);
              return t;
            });
    this.fetcher.allowCoreThreadTimeOut(true);
  }

  @Override
  public JWKSet getJWKSet(
      JWKSetCacheRefreshEvaluator refreshEvaluator, long currentTime, SecurityContext context)
      throws KeySourceException {
    synchronized (this) {
      long now = System.nanoTime();
      if (fetched && now - lastFetch < cooldownNanos) {
        throw new RateLimitReachedException();
      }
      fetched = true;
      lastFetch = now;
    }
    Future<JWKSet> fetch =
        fetcher.submit(() -> remote.getJWKSet(refreshEvaluator, currentTime, context));
    try {
      return fetch.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      fetch.cancel(true);
      throw new JWKSetUnavailableException("JWK set fetch exceeded " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof KeySourceException k) {
        throw k;
      }
      throw new JWKSetUnavailableException("JWK set fetch failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fetch.cancel(true);
      throw new JWKSetUnavailableException("interrupted while fetching the JWK set", e);
    }
  }

  @Override
  public void close() throws IOException {
    fetcher.shutdownNow();
    remote.close();
  }
}
