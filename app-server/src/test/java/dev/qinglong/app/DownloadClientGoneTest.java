package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.testkit.RawHttp;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A client that goes away in the middle of a download: the server's next write fails, and the
 * failure costs one WARN line. Nothing is written after the payload that is already out (a problem
 * document cannot follow an octet stream), so nothing fails while writing it and nothing is logged
 * at ERROR or with a stack trace.
 */
class DownloadClientGoneTest {
  private static final int SIZE = 4 * 1024 * 1024;

  @TempDir Path dir;

  @Test
  void aClientThatGoesAwayMidDownloadCostsOneWarnLineAndNoStackTrace() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    try (TestApp app =
        TestApp.start(
            dir,
            Map.of(
                // Throttled: the server is still writing long after the client left.
                "qinglong.downloads.rate-bytes-per-second", "262144",
                "qinglong.downloads.min-bytes-per-second", "0"))) {
      byte[] content = new byte[SIZE];
      new Random(5).nextBytes(content);
      Sha256Digest d = ArtifactApiContract.publish(app, "gone", content);

      logs.start();
      root.addAppender(logs);
      try (Socket socket = new Socket()) {
        RawHttp.sendGet(
            socket,
            app.http.port(),
            "/v1/projects/demo/artifacts/" + d.value(),
            app.token("alice"));
        InputStream in = socket.getInputStream();
        byte[] first = in.readNBytes(64 * 1024);
        assertThat(new String(first, 0, 16, StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");
        // Gone: the connection is reset, not closed in order, so the next write fails at once.
        socket.setSoLinger(true, 0);
      }

      // The handler saw the failure, and the container ended the request (all it logs is logged).
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> messages(logs).stream().anyMatch(m -> m.contains("artifact.io-failure")));
      await().atMost(Duration.ofMinutes(1)).until(() -> app.requestsInProgress() == 0);

      List<ILoggingEvent> events = List.copyOf(logs.list);
      assertThat(
              events.stream()
                  .filter(e -> e.getLevel() == Level.ERROR)
                  .map(DownloadClientGoneTest::line))
          .isEmpty();
      assertThat(
              events.stream()
                  .filter(e -> e.getThrowableProxy() != null)
                  .map(DownloadClientGoneTest::line))
          .isEmpty();
      List<ILoggingEvent> failures =
          events.stream()
              .filter(e -> e.getFormattedMessage().contains("artifact.io-failure"))
              .toList();
      assertThat(failures).hasSize(1);
      assertThat(failures.get(0).getLevel()).isEqualTo(Level.WARN);
    } finally {
      root.detachAppender(logs);
    }
  }

  private static List<String> messages(ListAppender<ILoggingEvent> logs) {
    return List.copyOf(logs.list).stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  private static String line(ILoggingEvent e) {
    return e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage();
  }
}
