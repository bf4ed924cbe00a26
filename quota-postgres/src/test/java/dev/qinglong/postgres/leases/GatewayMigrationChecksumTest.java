package dev.qinglong.postgres.leases;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.testkit.MigrationChecksums;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Released migrations are append-only: editing one changes its checksum and fails this test. A new
 * migration is pinned here when it is added (value: {@code sha256sum} of the file).
 */
class GatewayMigrationChecksumTest {
  private static final Map<String, String> RELEASED =
      Map.of(
          "V1__download_policy_and_slot_leases.sql",
          "d25fefe3b4c6edaf14bc6465334603b3c63c6befc21162b5f8ce84fc7980d3d9",
          "V2__reader_reads_published_artifacts.sql",
          "31287d3a517cbed494f22f4603df787fcf4d8fee730509bd6f85b2f08599e3cd");

  @Test
  void releasedMigrationsAreUnchangedAndAllPinned() {
    assertThat(MigrationChecksums.sha256("db/postgres-downloads")).isEqualTo(RELEASED);
  }

  @Test
  void theRequiredVersionIsTheLatestMigration() {
    assertThat(RELEASED).hasSize(GatewayMigrations.REQUIRED_VERSION);
  }
}
