package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.app.artifacts.DownloadSide;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.testkit.RawHttp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unthrottled download (large chunks) still stops mid-stream when the serving gate closes (ADR
 * 002; here the standalone barrier goes to another process while the client has stopped reading):
 * after the gate closed, at most the chunk being written and what the socket buffers held still
 * reach the client, and the transfer is short.
 */
class UnthrottledDownloadCutPostgresTest {
  private static final int SIZE = 48 * 1024 * 1024;
  private static final int CHUNK = 256 * 1024;
  private static final int RECEIVE_BUFFER = 64 * 1024;

  @TempDir Path dir;

  @Test
  void aClosedGateStopsAnUnthrottledBodyWithinOneChunkAndTheSocketBuffers() throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("unthrottled_cut");
    try (TestApp app =
            PgApps.start(
                db,
                dir,
                Map.of(
                    "qinglong.downloads.rate-bytes-per-second", "0",
                    "qinglong.downloads.min-bytes-per-second", "0"));
        HikariDataSource owner = db.newDataSource(2);
        Socket socket = new Socket()) {
      byte[] content = new byte[SIZE];
      new Random(11).nextBytes(content);
      Sha256Digest d = ArtifactApiContract.publish(app, "cut", content);

      socket.setReceiveBufferSize(RECEIVE_BUFFER); // before connecting: the window stays small
      RawHttp.sendGet(
          socket, app.http.port(), "/v1/projects/demo/artifacts/" + d.value(), app.token("alice"));
      InputStream in = socket.getInputStream();
      assertThat(readHead(in)).startsWith("HTTP/1.1 200 ");
      byte[] first = in.readNBytes(1024 * 1024);
      assertThat(first).hasSize(1024 * 1024);

      // The client stops reading; the server blocks in a write. The barrier's session dies and
      // another process takes the barrier, so this process's gate closes.
      try (Connection c = owner.getConnection();
          Statement st = c.createStatement()) {
        st.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name ="
                + " 'qinglong-download-lease' AND usename = 'ql3_reader'"
                + " AND datname = current_database()");
        boolean taken = false;
        for (int i = 0; i < 200 && !taken; i++) {
          try (ResultSet rs = st.executeQuery("SELECT pg_try_advisory_lock(20812, 1)")) {
            rs.next();
            taken = rs.getBoolean(1);
          }
          if (!taken) {
            Thread.sleep(5);
          }
        }
        assertThat(taken).as("took the barrier from outside").isTrue();
        DownloadSide side = app.bean(DownloadSide.class);
        for (int i = 0; i < 400 && side.mayServe(); i++) {
          Thread.sleep(50);
        }
        assertThat(side.mayServe()).as("the gate closed").isFalse();

        // The client reads again: the rest of the chunk in flight and the socket buffers arrive,
        // then the server cuts the connection.
        long afterGateClosed = 0;
        byte[] buf = new byte[64 * 1024];
        try {
          for (int n; (n = in.read(buf)) >= 0; ) {
            afterGateClosed += n;
          }
        } catch (IOException e) {
          // a reset connection is a cut too
        }
        long received = first.length + afterGateClosed;
        assertThat(received).as("a short transfer").isLessThan(SIZE);
        // Loopback: the sender's buffer grows up to tcp_wmem's maximum; the receiver's is 2 x the
        // requested size (Linux doubles it); Tomcat holds one socket write buffer (64 KiB).
        long inFlight = sendBufferMax() + 2L * RECEIVE_BUFFER + 64 * 1024;
        assertThat(afterGateClosed)
            .as("bytes after the gate closed (socket buffers up to %d bytes)", inFlight)
            .isLessThanOrEqualTo(inFlight + CHUNK);
      }
    }
  }

  /** The kernel's largest TCP send buffer (4 MiB when it cannot be read). */
  private static long sendBufferMax() {
    try {
      String[] wmem = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_wmem")).trim().split("\\s+");
      return Long.parseLong(wmem[2]);
    } catch (IOException | RuntimeException e) {
      return 4L << 20;
    }
  }

  private static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      assertThat(b).as("headers end before the connection does: %s", head).isNotNegative();
      head.append((char) b);
      matched = (b == '\r' || b == '\n') ? matched + 1 : 0;
    }
    return head.toString();
  }
}
