package dev.qinglong.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.testkit.MigrationChecksums;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Released migrations are append-only: editing one changes its checksum and fails this test. A new
 * migration is pinned here when it is added (value: {@code sha256sum} of the file).
 */
class PostgresMigrationChecksumTest {
  private static final Map<String, String> RELEASED =
      Map.ofEntries(
          Map.entry(
              "V1__management_quota_and_governance.sql",
              "c49e1e55a1e0057cc3e6ec287558eaee4de13f4748b834484c030ad022e4e2c5"),
          Map.entry(
              "V2__model_usage_read_quota_operation.sql",
              "f401b69955eebc1876c019c87c7692f05f0a1906ebf9163640b805b9f07afcbd"),
          Map.entry(
              "V3__completion_worker_publication.sql",
              "225f30cc6104f2c96b5e44a7c86df72ac00e288c976e04c0d646b8ccc10bf102"),
          Map.entry(
              "V4__management_quota_receipt_request_digest.sql",
              "7e7b3f4fc4364bcf3f6b4b79e60ab5ce1ca7da25296fc71071e0993b042d22a3"),
          Map.entry(
              "V5__governance_state_machine_guards.sql",
              "d359b6562f1244ae247675e3cf09d6582ceb2596a66444f4a98be535d6128b0e"),
          Map.entry(
              "V6__artifact_upload_quota_operation.sql",
              "a7d404350f2bc4b2a52b78d26229055e8b5c2721383562e6d967b825afbb4403"),
          Map.entry(
              "V7__proposal_list_indexes.sql",
              "5e3ad9552047515935fc475e214ba057ca75d28c5db7d17b312189e8d3b8f189"),
          Map.entry(
              "V8__artifacts_per_project.sql",
              "532726dfd27904ea6523f23ba79c764d3e6cee11dffb9e70d1c523df5d33fafd"),
          Map.entry(
              "V9__management_quota_operations_table.sql",
              "9bb61af6bbe1b4f120e3a512482d6f5faab5207afc43191ac4a04846d5b10b92"),
          Map.entry(
              "V10__n_of_m_approvals.sql",
              "a83c9c777eb97bc0161e5c2c16001c7b3b1992bf39f7e01a5c0e35d8e9c94605"),
          Map.entry(
              "V11__management_quota_limits_as_data.sql",
              "4743fbb7b3b0f4898079d8b78c3053eca6d74b24d134914bfb9e2e86655adb36"),
          Map.entry(
              "V12__webhooks.sql",
              "5055653d30d0caf722c654790eb365a1ebf727d58a05f70b71ac8fc80c037174"),
          Map.entry(
              "V13__webhook_event_dedup_keys.sql",
              "1c81a626a5119547823b19dcd9252c490d126da99181cb5ac69a3be5f18597d0"));

  /** The optional AI feature's migrations (db/postgres-ai), pinned the same way. */
  private static final Map<String, String> RELEASED_AI =
      Map.of(
          "V1__model_invocation_quota.sql",
          "90d04563a6eb66d58342ec070394e33a03eb1465b916d5882ca94c850fbc2834",
          "V2__policy_writes_belong_to_admin.sql",
          "0a99b74b1e209a74751844c1c72c2b32ad3872dbcf5c0a108b19ead4978e8a24",
          "V3__step_run_recovery_sweep_index.sql",
          "0cb432b19e024ae4b4ce235cd79499d1a0ec233d0427c90dc3a633780a553268",
          "V4__model_lifecycle_writes.sql",
          "4778173d65aa2e239beae69d99e801b06337fb1887f74e9ae504be1e65099aad",
          "V5__worker_reads_model_quota_windows.sql",
          "44832d86e66329ca528756b24d3052dc38c281413f015336b75d8c97b5a5956b");

  @Test
  void releasedMigrationsAreUnchangedAndAllPinned() {
    assertThat(MigrationChecksums.sha256("db/postgres")).isEqualTo(RELEASED);
  }

  @Test
  void releasedAiMigrationsAreUnchangedAndAllPinned() {
    assertThat(MigrationChecksums.sha256("db/postgres-ai")).isEqualTo(RELEASED_AI);
  }

  /** The version the code requires (and readiness checks) is the latest released migration. */
  @Test
  void theRequiredVersionsAreTheLatestMigrations() {
    assertThat(MigrationChecksums.highestVersion(RELEASED))
        .isEqualTo(PostgresMigrations.REQUIRED_VERSION);
    assertThat(MigrationChecksums.highestVersion(RELEASED_AI))
        .isEqualTo(PostgresMigrations.AI_REQUIRED_VERSION);
  }
}
