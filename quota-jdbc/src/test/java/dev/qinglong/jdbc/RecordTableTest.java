package dev.qinglong.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The column lists the record tables derive are the tables' columns, in the order PostgreSQL's
 * lifecycle procedures take them.
 */
class RecordTableTest {
  private static List<String> columns(String commaSeparated) {
    return List.of(commaSeparated.strip().split("\\s*,\\s*"));
  }

  @Test
  void receiptColumnsFollowTheRecords() {
    assertThat(AdmissionRows.RESERVATIONS.columns())
        .isEqualTo(
            columns(
                """
                project_id, invocation_id, step_run_id, run_id, model_id, model_policy_revision,
                quota_policy_revision, window_start_ms, window_ms, budget_max_invocations,
                budget_max_tokens, budget_max_cost_micros, reserved_tokens, reserved_cost_micros,
                window_seq, window_invocations, window_reserved_tokens, window_reserved_cost_micros,
                reserved_at_ms, digest
                """));
    assertThat(AdmissionRows.STARTS.columns())
        .isEqualTo(
            columns(
                """
                project_id, invocation_id, step_run_id, run_id, model_id, reservation_digest,
                started_at_ms, digest
                """));
    assertThat(CompletionRows.COMPLETIONS.columns())
        .isEqualTo(
            columns(
                """
                project_id, invocation_id, step_run_id, outcome, input_tokens, output_tokens,
                total_tokens, cost_micros, completed_at_ms, digest
                """));
    assertThat(CompletionRows.LEDGER.columns())
        .isEqualTo(
            columns(
                """
                project_id, ledger_seq, invocation_id, step_run_id, run_id, model_id, outcome,
                input_tokens, output_tokens, total_tokens, cost_micros, completion_digest,
                recorded_at_ms, digest
                """));
    assertThat(CompletionRows.SETTLEMENTS.columns())
        .isEqualTo(
            columns(
                """
                project_id, invocation_id, window_start_ms, window_ms, reservation_digest,
                completion_digest, settled_tokens, settled_cost_micros, released_tokens,
                released_cost_micros, window_settle_seq, window_released_tokens,
                window_released_cost_micros, settled_at_ms, digest
                """));
  }

  @Test
  void stepRunAndPolicyColumnsFollowTheRecords() {
    assertThat(StepRunRows.STEP_RUNS.columns())
        .isEqualTo(
            columns(
                """
                project_id, step_run_id, run_id, model_id, state, invocation_id, created_at_ms,
                updated_at_ms
                """));
    assertThat(ModelPolicyRows.MODEL_POLICIES.columns())
        .isEqualTo(
            columns(
                "project_id, model_id, revision, max_total_tokens, max_cost_micros, created_at_ms"));
    assertThat(ModelPolicyRows.QUOTA_POLICIES.columns())
        .isEqualTo(
            columns(
                """
                project_id, revision, window_ms, max_invocations, max_tokens, max_cost_micros,
                created_at_ms
                """));
  }
}
