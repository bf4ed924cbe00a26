package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * In the default text logs, a line written while serving a request carries the request's id ({@code
 * logging.pattern.correlation}), the same as its {@code X-Request-Id} header; lines of another
 * request carry theirs.
 */
@ExtendWith(OutputCaptureExtension.class)
class TextLogRequestIdTest {
  @TempDir static Path dir;

  @Test
  void theAuditLineOfARequestCarriesItsId(CapturedOutput output) {
    System.clearProperty("CONSOLE_LOG_STRUCTURED_FORMAT"); // text, whatever ran before
    try (TestApp app = TestApp.start(dir.resolve("data"), Map.of())) {
      Http.Response first =
          app.http.post(
              ApiContract.proposals("demo"),
              app.token("alice"),
              ApiContract.installJson("t1", "a"));
      Http.Response second =
          app.http.post(
              ApiContract.proposals("demo"),
              app.token("alice"),
              ApiContract.installJson("t2", "b"));
      assertThat(first.status()).as(first.body()).isEqualTo(201);
      assertThat(second.status()).as(second.body()).isEqualTo(201);
      String firstId = first.header("X-Request-Id").orElseThrow();
      String secondId = second.header("X-Request-Id").orElseThrow();

      List<String> audit =
          output
              .getOut()
              .lines()
              .filter(l -> l.contains("auditEvent=governance.proposed"))
              .toList();
      assertThat(audit).hasSize(2);
      assertThat(audit.get(0))
          .startsWith("20")
          .contains("[" + firstId + "]")
          .contains("actionRef=t1");
      assertThat(audit.get(1)).contains("[" + secondId + "]").contains("actionRef=t2");
    }
  }
}
