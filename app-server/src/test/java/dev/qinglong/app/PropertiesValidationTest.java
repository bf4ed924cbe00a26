package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.app.platform.MigrateCommand;
import dev.qinglong.app.support.TestApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every per-feature {@code qinglong.*} properties record validates on start: a bad value refuses to
 * start with a message naming the property, and the migrate step binds and validates them too.
 */
class PropertiesValidationTest {

  @ParameterizedTest
  @CsvSource({
    "qinglong.store, bogus, qinglong.store",
    "qinglong.postgres.admin-pool-size, 0, adminPoolSize",
    "qinglong.ai.runtime-pool-size, 65, runtimePoolSize",
    "qinglong.auth.mode, bogus, qinglong.auth.mode",
    "qinglong.auth.jwt.clock-skew, soon, qinglong.auth.jwt.clock-skew",
    "qinglong.shield.max-body-bytes, 0, maxBodyBytes",
    "qinglong.shield.max-concurrent-requests-per-client, 100001, maxConcurrentRequestsPerClient",
    "qinglong.artifacts.max-bytes, 0, maxBytes",
    "qinglong.downloads.mode, bogus, qinglong.downloads.mode",
    "qinglong.downloads.rate-bytes-per-second, -1, rateBytesPerSecond",
    "qinglong.downloads.slots, 1025, slots",
    "qinglong.downloads.slot, 1, qinglong.downloads.slot must be below qinglong.downloads.slots",
    "qinglong.management-quota.window, 500ms, qinglong.management-quota.window",
    "qinglong.management-quota.limits.propose, 0, limits.propose",
    "qinglong.webhooks.delivery.max-concurrent, 0, maxConcurrent",
    "qinglong.webhooks.delivery.lease, 5s, qinglong.webhooks.delivery.lease",
    "qinglong.webhooks.secret-key, c2hvcnQ=, qinglong.webhooks.secret-key must be base64",
  })
  void aBadValueRefusesToStartNamingTheProperty(
      String property, String value, String named, @TempDir Path dir) {
    assertThatThrownBy(() -> TestApp.start(dir, Map.of(property, value)).close())
        .satisfies(t -> assertThat(StartupTest.messages(t)).contains(named));
  }

  @Test
  void migrateStepBindsAndValidatesEveryRecord(@TempDir Path dir) {
    assertThat(MigrateCommand.run("--qinglong.data-dir=" + dir, "--qinglong.ai.enabled=true"))
        .isZero();
    assertThat(Files.exists(dir.resolve("qinglong.db"))).isTrue();
    assertThat(
            MigrateCommand.run("--qinglong.data-dir=" + dir, "--qinglong.shield.max-body-bytes=0"))
        .isEqualTo(1);
    assertThat(MigrateCommand.run("--qinglong.data-dir=" + dir, "--qinglong.downloads.slot=3"))
        .isEqualTo(1);
  }
}
