package dev.qinglong.app.artifacts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.TestApp;
import dev.qinglong.gateway.governor.DownloadRates;
import java.nio.file.Path;
import java.util.Map;
import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.tomcat.TomcatWebServer;

/**
 * How a download is cut into chunks (small while a rate is limited, large without a limit) and the
 * socket write buffer Tomcat sends them through.
 */
class DownloadChunkingTest {
  @TempDir Path dir;

  @Test
  void unthrottledDownloadsUseLargeChunksAndAnyLimitKeepsThemSmall() {
    assertThat(ArtifactDownloadController.chunkBytes(DownloadRates.UNLIMITED, 1L << 30))
        .isEqualTo(256 * 1024);
    assertThat(ArtifactDownloadController.chunkBytes(new DownloadRates(32L << 20, 0), 1L << 30))
        .isEqualTo(16 * 1024);
    assertThat(ArtifactDownloadController.chunkBytes(new DownloadRates(0, 1L << 20), 1L << 30))
        .isEqualTo(16 * 1024);
  }

  @Test
  void aChunkIsNeverLargerThanTheDownload() {
    assertThat(ArtifactDownloadController.chunkBytes(DownloadRates.UNLIMITED, 10)).isEqualTo(10);
    assertThat(ArtifactDownloadController.chunkBytes(new DownloadRates(1_000, 0), 1)).isEqualTo(1);
  }

  @Test
  void theSocketWriteBufferIs64KiBByDefaultAndConfigurable() {
    try (TestApp app = TestApp.start(dir.resolve("default"), Map.of())) {
      assertThat(connector(app).getProperty("socket.appWriteBufSize")).hasToString("65536");
    }
    try (TestApp app =
        TestApp.start(
            dir.resolve("set"), Map.of("qinglong.downloads.socket-write-buffer-bytes", "16384"))) {
      assertThat(connector(app).getProperty("socket.appWriteBufSize")).hasToString("16384");
    }
  }

  private static Connector connector(TestApp app) {
    return ((TomcatWebServer) app.webServer()).getTomcat().getConnector();
  }
}
