package dev.qinglong.app.artifacts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.artifacts.ArtifactDownloadController.SlowReaderCheck;
import org.junit.jupiter.api.Test;

/** The minimum transfer rate over windows of time spent waiting for the client. */
class SlowReaderCheckTest {
  static final long SECOND = 1_000_000_000L;

  @Test
  void aReaderBelowTheMinimumOverAWindowIsTooSlow() {
    SlowReaderCheck check = new SlowReaderCheck(65_536, SECOND);
    assertThat(check.tooSlow(SECOND / 2, 16_384)).isFalse(); // the window is not full yet
    assertThat(check.tooSlow(SECOND / 2, 16_384)).isTrue(); // 32 KiB in 1 s < 64 KiB/s
  }

  @Test
  void aReaderAtTheMinimumPassesWindowAfterWindow() {
    SlowReaderCheck check = new SlowReaderCheck(65_536, SECOND);
    for (int i = 0; i < 40; i++) {
      assertThat(check.tooSlow(SECOND / 4, 16_384)).isFalse();
    }
  }

  @Test
  void bytesTheKernelTookAtOnceCountForTheirWindowOnly() {
    SlowReaderCheck check = new SlowReaderCheck(65_536, SECOND);
    // 4 MiB into socket buffers at once, then one long wait: that window passes ...
    for (int i = 0; i < 256; i++) {
      assertThat(check.tooSlow(1_000, 16_384)).isFalse();
    }
    assertThat(check.tooSlow(3 * SECOND, 16_384)).isFalse();
    // ... the next one, at the reader's real pace, does not.
    assertThat(check.tooSlow(3 * SECOND, 16_384)).isTrue();
  }

  @Test
  void zeroMeansNoMinimum() {
    SlowReaderCheck check = new SlowReaderCheck(0, SECOND);
    assertThat(check.tooSlow(60 * SECOND, 1)).isFalse();
  }
}
