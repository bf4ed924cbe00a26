package dev.qinglong.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.testkit.MigrationChecksums;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Released migrations are append-only: editing one changes its checksum and fails this test. A new
 * migration is pinned here when it is added (value: {@code sha256sum} of the file).
 */
class SqliteMigrationChecksumTest {
  private static final Map<String, String> RELEASED =
      Map.of(
          "V1__management_quota_and_governance.sql",
          "0c303a0109b709ef6ae4f63ff92bb9af3c36ca7bd8e90ac88a2d609806816cbb");

  @Test
  void releasedMigrationsAreUnchangedAndAllPinned() {
    assertThat(MigrationChecksums.sha256("db/sqlite")).isEqualTo(RELEASED);
  }
}
