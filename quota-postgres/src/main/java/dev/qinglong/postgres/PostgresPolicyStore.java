package dev.qinglong.postgres;

import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.jdbc.JdbcStoreException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

/**
 * {@link ProjectPolicyStore} on PostgreSQL; permissions are a sorted {@code text[]}. Reads work for
 * {@code ql3_package_manager}; {@link #replaceMember} needs {@code ql3_admin}.
 */
public final class PostgresPolicyStore implements ProjectPolicyStore {
  private final DataSource dataSource;

  public PostgresPolicyStore(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource);
  }

  @Override
  public Set<Permission> permissionsOf(String projectId, String userId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(PostgresSql.PERMISSIONS_OF)) {
      ps.setString(1, projectId);
      ps.setString(2, userId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? decode(rs.getArray(1)) : EnumSet.noneOf(Permission.class);
      }
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable("postgres", "policy read", e);
    }
  }

  @Override
  public void replaceMember(ProjectMember member) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(PostgresSql.REPLACE_MEMBER)) {
      String[] names =
          member.permissions().stream().map(Permission::wireName).sorted().toArray(String[]::new);
      ps.setString(1, member.projectId());
      ps.setString(2, member.userId());
      ps.setArray(3, c.createArrayOf("text", names));
      ps.executeUpdate();
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable("postgres", "policy write", e);
    }
  }

  @Override
  public List<ProjectMember> members(String projectId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(PostgresSql.MEMBERS)) {
      ps.setString(1, projectId);
      List<ProjectMember> members = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          members.add(new ProjectMember(projectId, rs.getString(1), decode(rs.getArray(2))));
        }
      }
      return members;
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable("postgres", "policy list", e);
    }
  }

  private static Set<Permission> decode(Array array) throws SQLException {
    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
    for (Object name : (Object[]) array.getArray()) {
      permissions.add(Permission.fromWire((String) name));
    }
    return permissions;
  }
}
