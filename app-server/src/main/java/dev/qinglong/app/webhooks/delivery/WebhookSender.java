package dev.qinglong.app.webhooks.delivery;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.BasicHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.ManagedHttpClientConnectionFactory;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.config.Lookup;
import org.apache.hc.core5.http.config.RegistryBuilder;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.util.Timeout;

/**
 * Sends one signed delivery attempt over HTTP(S) with Apache HttpClient 5, to exactly the address
 * {@link TargetGuard} pinned: each attempt has its own connection manager whose resolver knows only
 * the pinned host and address, so the name is never resolved again and no connection of an earlier
 * attempt (possibly to another address) is reused. TLS server-name indication and hostname
 * verification still use the URL's host name.
 *
 * <p>No redirect is followed (a 3xx is a failed attempt), nothing is retried inside an attempt, no
 * proxy or cookie is used, and the response body is never read: only the status counts. Connect
 * timeout 5 s, and the whole attempt is cancelled after 10 s (defaults; tests pass shorter ones).
 */
public final class WebhookSender implements AutoCloseable {
  /** The default connect timeout. */
  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** The default bound on a whole attempt, connect to status line. */
  public static final Duration TOTAL_TIMEOUT = Duration.ofSeconds(10);

  static final String USER_AGENT = "QingLong-Webhooks/1";

  private final Timeout connectTimeout;
  private final Duration totalTimeout;
  private final Lookup<TlsSocketStrategy> tls;
  private final ScheduledExecutorService deadlines;

  /** What one attempt came to. */
  public record Outcome(boolean delivered, Integer statusCode, String error) {
    static Outcome status(int code) {
      return new Outcome(
          code >= 200 && code < 300, code, code >= 200 && code < 300 ? null : "HTTP " + code);
    }

    static Outcome error(String error) {
      return new Outcome(false, null, error);
    }
  }

  /** A sender with the default timeouts and the JVM's default trust store. */
  public WebhookSender() {
    this(CONNECT_TIMEOUT, TOTAL_TIMEOUT, DefaultClientTlsStrategy.createDefault());
  }

  /**
   * @param connectTimeout bound on establishing the TCP connection
   * @param totalTimeout bound on the whole attempt; the request is cancelled then
   * @param tls how TLS connections are made (trust store, hostname verification)
   */
  public WebhookSender(Duration connectTimeout, Duration totalTimeout, TlsSocketStrategy tls) {
    this.connectTimeout = Timeout.of(Objects.requireNonNull(connectTimeout, "connectTimeout"));
    this.totalTimeout = Objects.requireNonNull(totalTimeout, "totalTimeout");
    this.tls = RegistryBuilder.<TlsSocketStrategy>create().register("https", tls).build();
    this.deadlines =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "webhook-deadlines");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Posts {@code body} to the pinned target with the Standard Webhooks headers.
   *
   * @param signature the {@code webhook-signature} header ({@link WebhookSigner})
   */
  public Outcome send(
      TargetGuard.PinnedTarget target,
      String messageId,
      long timestampSeconds,
      String signature,
      byte[] body) {
    BasicHttpClientConnectionManager connections =
        BasicHttpClientConnectionManager.create(
            null,
            new PinnedResolver(target.host(), target.address()),
            tls,
            ManagedHttpClientConnectionFactory.INSTANCE);
    connections.setConnectionConfig(
        ConnectionConfig.custom()
            .setConnectTimeout(connectTimeout)
            .setSocketTimeout(Timeout.of(totalTimeout))
            .build());
    RequestConfig request =
        RequestConfig.custom()
            .setRedirectsEnabled(false)
            .setAuthenticationEnabled(false)
            .setExpectContinueEnabled(false)
            .setContentCompressionEnabled(false)
            .setResponseTimeout(Timeout.of(totalTimeout))
            .build();
    HttpPost post = new HttpPost(target.url());
    post.setHeader("webhook-id", messageId);
    post.setHeader("webhook-timestamp", Long.toString(timestampSeconds));
    post.setHeader("webhook-signature", signature);
    post.setHeader("User-Agent", USER_AGENT);
    post.setEntity(
        new ByteArrayEntity(
            body, ContentType.APPLICATION_JSON.withCharset(StandardCharsets.UTF_8)));
    AtomicBoolean timedOut = new AtomicBoolean();
    try (CloseableHttpClient client =
        HttpClients.custom()
            .setConnectionManager(connections)
            .setDefaultRequestConfig(request)
            .disableRedirectHandling()
            .disableAutomaticRetries()
            .disableCookieManagement()
            .disableAuthCaching()
            .disableContentCompression()
            .build()) {
      ScheduledFuture<?> deadline =
          deadlines.schedule(
              () -> {
                timedOut.set(true);
                post.cancel();
              },
              totalTimeout.toMillis(),
              TimeUnit.MILLISECONDS);
      try {
        // executeOpen: the body is not consumed on close (a handler would read it to the end).
        try (ClassicHttpResponse response = client.executeOpen(null, post, null)) {
          return Outcome.status(response.getCode());
        }
      } finally {
        deadline.cancel(false);
      }
    } catch (IOException | RuntimeException e) {
      if (timedOut.get()) {
        return Outcome.error("timed out after " + totalTimeout.toMillis() + " ms");
      }
      return Outcome.error(describe(e));
    }
  }

  /**
   * A short reason naming neither an address nor anything the endpoint sent, nor a Java class: it
   * is shown to Project administrators in the delivery log.
   */
  static String describe(Throwable e) {
    if (e instanceof java.net.SocketTimeoutException
        || e instanceof org.apache.hc.client5.http.ConnectTimeoutException) {
      return "timed out";
    }
    if (e instanceof java.net.ConnectException
        || e instanceof org.apache.hc.client5.http.HttpHostConnectException) {
      return "connection refused or unreachable";
    }
    if (e instanceof javax.net.ssl.SSLHandshakeException) {
      return "TLS handshake failed";
    }
    if (e instanceof javax.net.ssl.SSLException) {
      return "TLS failed";
    }
    if (e instanceof UnknownHostException) {
      return "host does not resolve";
    }
    if (e instanceof org.apache.hc.core5.http.NoHttpResponseException) {
      return "no response";
    }
    return "request failed";
  }

  @Override
  public void close() {
    deadlines.shutdownNow();
  }

  /** Resolves the one pinned host to the one pinned address, and nothing else. */
  private static final class PinnedResolver implements DnsResolver {
    private final String host;
    private final InetAddress address;

    PinnedResolver(String host, InetAddress address) {
      this.host = strip(host);
      this.address = address;
    }

    @Override
    public InetAddress[] resolve(String name) throws UnknownHostException {
      if (name != null && strip(name).equalsIgnoreCase(host)) {
        return new InetAddress[] {address};
      }
      throw new UnknownHostException("not the pinned host");
    }

    @Override
    public List<InetSocketAddress> resolve(String name, int port) throws UnknownHostException {
      return List.of(new InetSocketAddress(resolve(name)[0], port));
    }

    @Override
    public String resolveCanonicalHostname(String name) throws UnknownHostException {
      resolve(name);
      return host;
    }

    private static String strip(String h) {
      return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }
  }
}
