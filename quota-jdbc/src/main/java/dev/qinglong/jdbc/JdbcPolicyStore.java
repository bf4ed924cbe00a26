package dev.qinglong.jdbc;

import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicyStore;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * {@link ProjectPolicyStore} over JDBC; the permissions column is encoded by the dialect ({@link
 * JdbcDialect#setPermissions}: a sorted {@code text[]} on PostgreSQL, a sorted JSON array of wire
 * names on SQLite). Every call is one auto-commit statement. On PostgreSQL reads work for {@code
 * ql3_package_manager}; {@link #replaceMember} needs {@code ql3_admin}, so memberships may be
 * written over a login of their own.
 */
public final class JdbcPolicyStore implements ProjectPolicyStore {
  private static final String PERMISSIONS_OF =
      "SELECT permissions FROM project_members WHERE project_id = ? AND user_id = ?";

  private static final String REPLACE_MEMBER =
      """
      INSERT INTO project_members (project_id, user_id, permissions, updated_at_ms)
      VALUES (?, ?, ?, %s)
      ON CONFLICT (project_id, user_id) DO UPDATE SET
        permissions = excluded.permissions, updated_at_ms = excluded.updated_at_ms
      """;

  private static final String MEMBERS_PAGE =
      """
      SELECT user_id, permissions FROM project_members
      WHERE project_id = ? AND (CAST(? AS text) IS NULL OR user_id > ?)
      ORDER BY user_id
      LIMIT ?
      """;

  private final JdbcDialect dialect;
  private final JdbcTransactions jdbc;
  private final JdbcTransactions memberWrites;
  private final String replaceMember;

  /** Reads and membership writes over {@code dataSource}. */
  public JdbcPolicyStore(DataSource dataSource, JdbcDialect dialect) {
    this(dataSource, dataSource, dialect);
  }

  /**
   * @param dataSource the reads
   * @param memberWrites only {@link #replaceMember}
   */
  public JdbcPolicyStore(DataSource dataSource, DataSource memberWrites, JdbcDialect dialect) {
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.memberWrites = new JdbcTransactions(memberWrites, dialect);
    this.replaceMember = REPLACE_MEMBER.formatted(dialect.nowMs());
  }

  @Override
  public Set<Permission> permissionsOf(String projectId, String userId) {
    return jdbc.query(
        "policy read",
        PERMISSIONS_OF,
        rs -> decode(rs.next() ? dialect.getPermissions(rs, 1) : List.of()),
        projectId,
        userId);
  }

  @Override
  public void replaceMember(ProjectMember member) {
    memberWrites.statement(
        "policy write",
        replaceMember,
        ps -> {
          ps.setString(1, member.projectId());
          ps.setString(2, member.userId());
          dialect.setPermissions(
              ps, 3, member.permissions().stream().map(Permission::wireName).sorted().toList());
          return ps.executeUpdate();
        });
  }

  /** Every member: the one page that holds them all. */
  @Override
  public List<ProjectMember> members(String projectId) {
    return members(projectId, null, Integer.MAX_VALUE);
  }

  @Override
  public List<ProjectMember> members(String projectId, String afterUserId, int limit) {
    return jdbc.query(
        "policy list",
        MEMBERS_PAGE,
        rs -> {
          List<ProjectMember> members = new ArrayList<>();
          while (rs.next()) {
            members.add(
                new ProjectMember(
                    projectId, rs.getString(1), decode(dialect.getPermissions(rs, 2))));
          }
          return members;
        },
        projectId,
        afterUserId,
        afterUserId,
        JdbcRows.requireLimit(limit));
  }

  private static Set<Permission> decode(List<String> wireNames) {
    return wireNames.stream()
        .map(Permission::fromWire)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(Permission.class)));
  }
}
