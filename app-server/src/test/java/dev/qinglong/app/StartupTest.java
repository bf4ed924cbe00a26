package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.app.support.TestApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up behaviour: configuration validation, the dev-tokens file and its network guard. */
class StartupTest {

  static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  static String messages(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c.getMessage()).append('\n');
    }
    return b.toString();
  }

  @Test
  void windowOverFiveMinutesRefusesToStart(@TempDir Path dir) {
    assertThatThrownBy(
            () -> TestApp.start(dir, Map.of("qinglong.management-quota.window", "6m")).close())
        .satisfies(
            t -> assertThat(messages(t)).contains("qinglong.management-quota").contains("5m"));
  }

  @Test
  void limitOver1000RefusesToStart(@TempDir Path dir) {
    assertThatThrownBy(
            () ->
                TestApp.start(dir, Map.of("qinglong.management-quota.limits.inspect", "1001"))
                    .close())
        .satisfies(t -> assertThat(messages(t)).contains("limits.inspect").contains("1000"));
  }

  @Test
  void devTokensRefuseANonLoopbackAddressUnlessTold(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> TestApp.start(dir, Map.of("server.address", "0.0.0.0")).close())
        .satisfies(
            t -> assertThat(messages(t)).contains("qinglong.auth.dev-tokens-on-network=true"));
    try (TestApp app =
        TestApp.start(
            dir,
            Map.of("server.address", "0.0.0.0", "qinglong.auth.dev-tokens-on-network", "true"))) {
      assertThat(app.token("alice")).isNotBlank();
    }
  }

  @Test
  void devTokensFileIsPrivateAndReusedAcrossRestarts(@TempDir Path dir) throws Exception {
    String alice;
    try (TestApp app = TestApp.start(dir)) {
      alice = app.token("alice");
      Path file = dir.resolve("dev-tokens.properties");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
          .isEqualTo("rw-------");
      assertThat(Files.readAllLines(file))
          .anyMatch(l -> l.startsWith("admin="))
          .anyMatch(l -> l.startsWith("bob="))
          .anyMatch(l -> l.startsWith("carol="));
      // 32 random bytes, base64url without padding.
      assertThat(alice).matches("[A-Za-z0-9_-]{43}");
      assertThat(app.http.get("/v1/projects/demo/members", alice).status()).isEqualTo(200);
    }
    try (TestApp again = TestApp.start(dir)) {
      assertThat(again.token("alice")).isEqualTo(alice);
      assertThat(again.http.get("/v1/projects/demo/members", alice).status()).isEqualTo(200);
    }
  }
}
