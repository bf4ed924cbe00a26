package dev.qinglong.jdbc;

import static dev.qinglong.jdbc.JdbcRows.nullableLong;
import static dev.qinglong.jdbc.JdbcRows.setNullableLong;

import dev.qinglong.core.modelquota.ModelInvocationPolicy;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.QuotaWindow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The policy rows of {@link JdbcModelQuotaStore} ({@code model_invocation_policies}, {@code
 * model_project_quota_policies}): append-only revisions, the latest one in force. Each statement
 * next to the code that binds and maps it.
 */
public final class ModelPolicyRows {
  private ModelPolicyRows() {}

  /**
   * The columns of {@code model_invocation_policies} in the order this class maps and binds them.
   */
  public static final List<String> MODEL_POLICY_COLUMNS =
      JdbcRows.columns(
          """
          project_id, model_id, revision, max_total_tokens, max_cost_micros, created_at_ms
          """);

  /**
   * The columns of {@code model_project_quota_policies} in the order this class maps and binds
   * them.
   */
  public static final List<String> QUOTA_POLICY_COLUMNS =
      JdbcRows.columns(
          """
          project_id, revision, window_ms, max_invocations, max_tokens, max_cost_micros,
          created_at_ms
          """);

  private static final String LATEST_MODEL_POLICY =
      """
      SELECT %s FROM model_invocation_policies
      WHERE project_id = ? AND model_id = ? ORDER BY revision DESC LIMIT 1
      """
          .formatted(String.join(", ", MODEL_POLICY_COLUMNS));

  public static Optional<ModelInvocationPolicy> latestModelPolicy(
      Connection c, String projectId, String modelId) throws SQLException {
    return Optional.ofNullable(
        JdbcRows.byKey(
            c, LATEST_MODEL_POLICY, projectId, modelId, "model policy", rs -> modelPolicy(rs, 1)));
  }

  private static final String INSERT_MODEL_POLICY =
      """
      INSERT INTO model_invocation_policies (%s) VALUES (%s)
      """
          .formatted(
              String.join(", ", MODEL_POLICY_COLUMNS),
              JdbcRows.parameters(MODEL_POLICY_COLUMNS.size()));

  public static void insert(Connection c, ModelInvocationPolicy p) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_MODEL_POLICY)) {
      ps.setString(1, p.projectId());
      ps.setString(2, p.modelId());
      ps.setLong(3, p.revision());
      ps.setLong(4, p.maxTotalTokens());
      setNullableLong(ps, 5, p.maxCostMicros());
      ps.setLong(6, p.createdAtMs());
      ps.executeUpdate();
    }
  }

  private static final String LATEST_QUOTA_POLICY =
      """
      SELECT %s FROM model_project_quota_policies
      WHERE project_id = ? ORDER BY revision DESC LIMIT 1
      """
          .formatted(String.join(", ", QUOTA_POLICY_COLUMNS));

  public static Optional<ProjectQuotaPolicy> latestQuotaPolicy(Connection c, String projectId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LATEST_QUOTA_POLICY)) {
      ps.setString(1, projectId);
      return Optional.ofNullable(JdbcRows.one(ps, "quota policy", rs -> quotaPolicy(rs, 1)));
    }
  }

  private static final String INSERT_QUOTA_POLICY =
      """
      INSERT INTO model_project_quota_policies (%s) VALUES (%s)
      """
          .formatted(
              String.join(", ", QUOTA_POLICY_COLUMNS),
              JdbcRows.parameters(QUOTA_POLICY_COLUMNS.size()));

  public static void insert(Connection c, ProjectQuotaPolicy p) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT_QUOTA_POLICY)) {
      ps.setString(1, p.projectId());
      ps.setLong(2, p.revision());
      ps.setLong(3, p.window().millis());
      ps.setLong(4, p.maxInvocations());
      ps.setLong(5, p.maxTokens());
      setNullableLong(ps, 6, p.maxCostMicros());
      ps.setLong(7, p.createdAtMs());
      ps.executeUpdate();
    }
  }

  /** The policy in the columns from {@code at} on, in {@link #LATEST_MODEL_POLICY} order. */
  public static ModelInvocationPolicy modelPolicy(ResultSet rs, int at) throws SQLException {
    return new ModelInvocationPolicy(
        rs.getString(at),
        rs.getString(at + 1),
        rs.getLong(at + 2),
        rs.getLong(at + 3),
        nullableLong(rs, at + 4),
        rs.getLong(at + 5));
  }

  /** The policy in the columns from {@code at} on, in {@link #LATEST_QUOTA_POLICY} order. */
  public static ProjectQuotaPolicy quotaPolicy(ResultSet rs, int at) throws SQLException {
    return new ProjectQuotaPolicy(
        rs.getString(at),
        rs.getLong(at + 1),
        QuotaWindow.ofMillis(rs.getLong(at + 2)),
        rs.getLong(at + 3),
        rs.getLong(at + 4),
        nullableLong(rs, at + 5),
        rs.getLong(at + 6));
  }
}
