package dev.qinglong.sqlite;

import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicyStore;
import dev.qinglong.jdbc.JdbcStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/** {@link ProjectPolicyStore} on SQLite; permissions are a sorted JSON array of wire names. */
public final class SqlitePolicyStore implements ProjectPolicyStore {
  private static final Pattern JSON_STRING = Pattern.compile("\"([a-z.]+)\"");
  private final DataSource dataSource;

  public SqlitePolicyStore(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource);
  }

  @Override
  public Set<Permission> permissionsOf(String projectId, String userId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(SqliteSql.PERMISSIONS_OF)) {
      ps.setString(1, projectId);
      ps.setString(2, userId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? decode(rs.getString(1)) : EnumSet.noneOf(Permission.class);
      }
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable("sqlite", "policy read", e);
    }
  }

  @Override
  public void replaceMember(ProjectMember member) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(SqliteSql.REPLACE_MEMBER)) {
      ps.setString(1, member.projectId());
      ps.setString(2, member.userId());
      ps.setString(3, encode(member.permissions()));
      ps.executeUpdate();
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable("sqlite", "policy write", e);
    }
  }

  @Override
  public List<ProjectMember> members(String projectId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(SqliteSql.MEMBERS)) {
      ps.setString(1, projectId);
      List<ProjectMember> members = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          members.add(new ProjectMember(projectId, rs.getString(1), decode(rs.getString(2))));
        }
      }
      return members;
    } catch (SQLException e) {
      throw JdbcStoreException.unavailable("sqlite", "policy list", e);
    }
  }

  private static String encode(Set<Permission> permissions) {
    return permissions.stream()
        .map(Permission::wireName)
        .sorted()
        .map(name -> "\"" + name + "\"")
        .collect(Collectors.joining(",", "[", "]"));
  }

  private static Set<Permission> decode(String json) {
    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
    Matcher m = JSON_STRING.matcher(json);
    while (m.find()) {
      permissions.add(Permission.fromWire(m.group(1)));
    }
    return permissions;
  }
}
