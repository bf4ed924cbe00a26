package dev.qinglong.app.webhooks.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.qinglong.core.webhooks.WebhookTargets;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS through the pinned address: the connection goes to the address the guard resolved, while
 * TLS still verifies the certificate against the URL's host name (a certificate for another name is
 * refused). The certificate is made for {@code hooks.test} with the JDK's keytool.
 */
class WebhookSenderTlsTest {
  @TempDir static Path dir;
  private static HttpsServer server;
  private static SSLContext clientContext;

  @BeforeAll
  static void start() throws Exception {
    Path store = dir.resolve("server.p12");
    Process keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "hooks",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=hooks.test",
                "-ext",
                "SAN=dns:hooks.test",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit",
                "-keypass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(keytool.exitValue()).as(out).isZero();

    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "changeit".toCharArray());
    SSLContext serverContext = SSLContext.getInstance("TLS");
    serverContext.init(kmf.getKeyManagers(), null, null);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    clientContext = SSLContext.getInstance("TLS");
    clientContext.init(null, tmf.getTrustManagers(), null);

    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(serverContext));
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(204, -1);
          }
        });
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  /** A URL under {@code host}, pinned by a fake DNS to the local server. */
  private static TargetGuard.PinnedTarget pinned(String host) throws Exception {
    WebhookTargets.HostResolver dns =
        name -> {
          if (name.equals(host)) {
            return new InetAddress[] {InetAddress.getLoopbackAddress()};
          }
          throw new UnknownHostException(name);
        };
    return new TargetGuard(new WebhookTargets(true, dns), dns)
        .check(URI.create("https://" + host + ":" + server.getAddress().getPort() + "/in"));
  }

  private static WebhookSender.Outcome send(TargetGuard.PinnedTarget target) {
    try (WebhookSender sender =
        new WebhookSender(
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            new DefaultClientTlsStrategy(clientContext))) {
      byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
      String sig = WebhookSigner.signatureHeader("msg_t", 1, body, List.of(new byte[24]));
      return sender.send(target, "msg_t", 1, sig, body);
    }
  }

  @Test
  void theCertificateIsVerifiedAgainstTheHostNameWhileConnectingToThePinnedAddress()
      throws Exception {
    WebhookSender.Outcome outcome = send(pinned("hooks.test"));

    assertThat(outcome.delivered()).as(String.valueOf(outcome.error())).isTrue();
    assertThat(outcome.statusCode()).isEqualTo(204);
  }

  @Test
  void aCertificateForAnotherNameIsRefused() throws Exception {
    WebhookSender.Outcome outcome = send(pinned("other.test"));

    assertThat(outcome.delivered()).isFalse();
    assertThat(outcome.statusCode()).isNull();
    assertThat(outcome.error()).startsWith("TLS failed");
  }
}
