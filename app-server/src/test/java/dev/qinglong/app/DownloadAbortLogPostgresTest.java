package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Payload stops mid-stream (here: the standalone barrier went to another process): the client sees
 * a short, failed transfer and the server logs one WARN line, no ERROR and no stack trace.
 */
class DownloadAbortLogPostgresTest {
  private static final int SIZE = 2 * 1024 * 1024;

  @TempDir Path dir;

  @Test
  void aDownloadCutMidStreamCostsOneWarnLineAndNoStackTrace() throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("abort_log");
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    try (TestApp app =
            PgApps.start(
                db,
                dir,
                Map.of(
                    "qinglong.downloads.rate-bytes-per-second", "131072",
                    "qinglong.downloads.min-bytes-per-second", "0"));
        HikariDataSource owner = db.newDataSource(2)) {
      byte[] content = new byte[SIZE];
      new Random(7).nextBytes(content);
      Sha256Digest d = ArtifactApiContract.publish(app, "abort", content);

      String path = "/v1/projects/demo/artifacts/" + d.value();
      HttpResponse<InputStream> download =
          HttpClient.newHttpClient()
              .send(
                  app.http.builder(path, app.token("alice")).GET().build(),
                  HttpResponse.BodyHandlers.ofInputStream());
      assertThat(download.statusCode()).isEqualTo(200);
      InputStream in = download.body();
      byte[] first = in.readNBytes(64 * 1024);
      assertThat(first).hasSize(64 * 1024);

      logs.start();
      root.addAppender(logs);
      try (Connection c = owner.getConnection();
          Statement st = c.createStatement()) {
        // The barrier's session dies and another process takes the barrier before this one can.
        st.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name ="
                + " 'qinglong-download-lease' AND usename = 'ql3_reader'"
                + " AND datname = current_database()");
        await("took the barrier from outside")
            .atMost(Duration.ofMinutes(1))
            .pollInterval(Duration.ofMillis(5))
            .until(() -> tryBarrier(st));

        long received = first.length;
        boolean failed = false;
        try {
          byte[] buf = new byte[8192];
          for (int n; (n = in.read(buf)) >= 0; ) {
            received += n;
          }
        } catch (IOException e) {
          failed = true;
        }
        assertThat(received).as("a short transfer").isLessThan(SIZE);
        assertThat(failed || received < SIZE).isTrue();

        await()
            .atMost(Duration.ofMinutes(1))
            .until(
                () ->
                    List.copyOf(logs.list).stream()
                        .anyMatch(e -> e.getFormattedMessage().contains("download.aborted")));
        // The container ended the request: what it logs after the handler (the error dispatch of
        // the cut response) is logged by now.
        await().atMost(Duration.ofMinutes(1)).until(() -> app.requestsInProgress() == 0);
        List<ILoggingEvent> events = List.copyOf(logs.list);
        assertThat(events.stream().filter(e -> e.getLevel() == Level.ERROR).map(this::line))
            .isEmpty();
        List<ILoggingEvent> aborted =
            events.stream()
                .filter(e -> e.getFormattedMessage().contains("download.aborted"))
                .toList();
        assertThat(aborted).hasSize(1);
        assertThat(aborted.get(0).getLevel()).isEqualTo(Level.WARN);
        assertThat(aborted.get(0).getThrowableProxy()).isNull();
        assertThat(events.stream().filter(e -> e.getThrowableProxy() != null).map(this::line))
            .isEmpty();
      } finally {
        root.detachAppender(logs);
      }
    }
  }

  private String line(ILoggingEvent e) {
    return e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage();
  }

  private static boolean tryBarrier(Statement st) throws Exception {
    try (ResultSet rs = st.executeQuery("SELECT pg_try_advisory_lock(20812, 1)")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }
}
