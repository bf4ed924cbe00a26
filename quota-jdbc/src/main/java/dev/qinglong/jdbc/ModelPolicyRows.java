package dev.qinglong.jdbc;

import dev.qinglong.core.modelquota.ModelInvocationPolicy;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The policy rows of {@link JdbcModelQuotaStore} ({@code model_invocation_policies}, {@code
 * model_project_quota_policies}): append-only revisions, the latest one in force. Each statement
 * next to the code that binds and maps it.
 */
public final class ModelPolicyRows {
  private ModelPolicyRows() {}

  public static final RecordTable<ModelInvocationPolicy> MODEL_POLICIES =
      RecordTable.of("model_invocation_policies", ModelInvocationPolicy.class);

  public static final RecordTable<ProjectQuotaPolicy> QUOTA_POLICIES =
      RecordTable.of("model_project_quota_policies", ProjectQuotaPolicy.class);

  public static Optional<ModelInvocationPolicy> latestModelPolicy(
      Connection c, String projectId, String modelId) throws SQLException {
    return Optional.ofNullable(
        MODEL_POLICIES.first(
            c,
            "WHERE project_id = ? AND model_id = ? ORDER BY revision DESC LIMIT 1",
            projectId,
            modelId));
  }

  public static Optional<ProjectQuotaPolicy> latestQuotaPolicy(Connection c, String projectId)
      throws SQLException {
    return Optional.ofNullable(
        QUOTA_POLICIES.first(c, "WHERE project_id = ? ORDER BY revision DESC LIMIT 1", projectId));
  }
}
