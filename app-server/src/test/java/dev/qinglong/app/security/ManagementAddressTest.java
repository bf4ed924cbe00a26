package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.TestApp;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The management port (unauthenticated readiness details and metrics) listens on loopback unless
 * {@code management.server.address} says otherwise; Spring Boot alone would bind it to every
 * interface, whatever {@code server.address} is. The Kubernetes manifests set it
 * (DeployManifestsTest).
 */
class ManagementAddressTest {
  @TempDir Path dir;

  /** Whether something accepts a connection on {@code host:port} (loopback: refused at once). */
  private static boolean accepts(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 5000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void inDevTokensModeTheManagementPortListensOnLoopbackOnly() {
    // "" leaves the property unset: the application's own default decides.
    try (TestApp app =
        TestApp.start(dir.resolve("default"), Map.of("management.server.address", ""))) {
      int port = app.management.port();
      assertThat(port).isNotEqualTo(app.http.port());
      assertThat(app.management.get("/actuator/health/readiness", null).status()).isEqualTo(200);
      assertThat(accepts("127.0.0.1", port)).isTrue();
      // Any address of this host other than 127.0.0.1 (on Linux all of 127/8 is local): a socket
      // bound to every interface would accept here.
      assertThat(accepts("127.0.0.2", port)).as("management port on every interface").isFalse();
    }
  }

  @Test
  void anExplicitManagementAddressWins() {
    try (TestApp app =
        TestApp.start(dir.resolve("explicit"), Map.of("management.server.address", "127.0.0.2"))) {
      int port = app.management.port();
      assertThat(accepts("127.0.0.2", port)).isTrue();
      assertThat(accepts("127.0.0.1", port)).isFalse();
    }
  }
}
