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
      Map.ofEntries(
          Map.entry(
              "V1__management_quota_and_governance.sql",
              "0c303a0109b709ef6ae4f63ff92bb9af3c36ca7bd8e90ac88a2d609806816cbb"),
          Map.entry(
              "V2__model_usage_read_quota_operation.sql",
              "199a90e82f3c4edfc3aad9d65fa5dc3837a6dbd4988a58d379cbf82f892f976f"),
          Map.entry(
              "V3__management_quota_receipt_request_digest.sql",
              "ae11bac4a0c2e07f9c28670b738c8b96f40c64b7edc89429d3a5586f889cc961"),
          Map.entry(
              "V4__artifact_upload_quota_operation.sql",
              "b298fe385eccc51f2920eebbf08639417e097ca2762f96aa7ff48c34a2754f13"),
          Map.entry(
              "V5__proposal_list_index.sql",
              "7c832ae4ac8f31c545a1bb1a73b8274648c97b5cc8bbcc3c5473257f11839975"),
          Map.entry(
              "V6__artifacts_per_project.sql",
              "19f80bf3af18d4cb68bd34491d886b62f8d08aa9951947a60aa8f9d0a69a00db"),
          Map.entry(
              "V7__management_quota_operations_table.sql",
              "a5462e19475d5ddb3813defa774440ca1e878d4f7611950b5a2276a6b67aa953"),
          Map.entry(
              "V8__n_of_m_approvals.sql",
              "aba4cd514bd8e97b84057a36d817d5c9f0df2b5465de12fb6f9484ce250b92e9"),
          Map.entry(
              "V9__management_quota_limits_as_data.sql",
              "7dd6ae3142e94a2304bba70b4e8d129cf64f060f86b2413b20ebff6846ffac56"),
          Map.entry(
              "V10__webhooks.sql",
              "17133dd73acfdc23166e173d146c68a447b5106b261bcef11ce45d0d8fa4a7ec"),
          Map.entry(
              "V11__webhook_event_dedup_keys.sql",
              "5982e436e78c4e78323c263903cf9846fa6d32c16199e5b8f7b49f22e6660479"));

  /** The optional AI feature's migrations (db/sqlite-ai), pinned the same way. */
  private static final Map<String, String> RELEASED_AI =
      Map.of(
          "V1__model_invocation_quota.sql",
          "ec924a158408a36f78b6c6e94884e081127cf932c7c9282a3962c02e93915c3a",
          "V2__step_run_recovery_sweep_index.sql",
          "1235b2b11dac5f5adcec61f7777fc651755a8b3d78ac20b39d68cc27a7ce4ddf");

  @Test
  void releasedMigrationsAreUnchangedAndAllPinned() {
    assertThat(MigrationChecksums.sha256("db/sqlite")).isEqualTo(RELEASED);
  }

  @Test
  void releasedAiMigrationsAreUnchangedAndAllPinned() {
    assertThat(MigrationChecksums.sha256("db/sqlite-ai")).isEqualTo(RELEASED_AI);
  }

  /** The version the code requires (and readiness checks) is the latest released migration. */
  @Test
  void theRequiredVersionsAreTheLatestMigrations() {
    assertThat(MigrationChecksums.highestVersion(RELEASED))
        .isEqualTo(SqliteDatabase.REQUIRED_VERSION);
    assertThat(MigrationChecksums.highestVersion(RELEASED_AI))
        .isEqualTo(SqliteDatabase.AI_REQUIRED_VERSION);
  }
}
