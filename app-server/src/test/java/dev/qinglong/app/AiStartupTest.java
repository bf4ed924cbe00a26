package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.app.support.TestApp;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up validation of the AI-related properties: bad values refuse to start, naming them. */
class AiStartupTest {

  @Test
  void modelUsageReadLimitOver1000RefusesToStart(@TempDir Path dir) {
    assertThatThrownBy(
            () ->
                TestApp.start(
                        dir,
                        Map.of(
                            "qinglong.ai.enabled",
                            "true",
                            "qinglong.management-quota.limits.model-usage-read",
                            "1001"))
                    .close())
        .satisfies(
            t ->
                assertThat(StartupTest.messages(t))
                    .contains("limits.modelUsageRead")
                    .contains("1000"));
  }

  @Test
  void runtimePoolSizeZeroRefusesToStart(@TempDir Path dir) {
    assertThatThrownBy(
            () -> TestApp.start(dir, Map.of("qinglong.ai.runtime-pool-size", "0")).close())
        .satisfies(t -> assertThat(StartupTest.messages(t)).contains("ai.runtimePoolSize"));
  }
}
