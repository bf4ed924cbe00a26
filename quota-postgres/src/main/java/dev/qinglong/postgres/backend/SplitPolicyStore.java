package dev.qinglong.postgres.backend;

import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicyStore;
import java.util.List;
import java.util.Set;

/** Reads Policy through the package manager's login, writes memberships through the admin's. */
final class SplitPolicyStore implements ProjectPolicyStore {
  private final ProjectPolicyStore reads;
  private final ProjectPolicyStore writes;

  SplitPolicyStore(ProjectPolicyStore reads, ProjectPolicyStore writes) {
    this.reads = reads;
    this.writes = writes;
  }

  @Override
  public Set<Permission> permissionsOf(String projectId, String userId) {
    return reads.permissionsOf(projectId, userId);
  }

  @Override
  public void replaceMember(ProjectMember member) {
    writes.replaceMember(member);
  }

  @Override
  public List<ProjectMember> members(String projectId) {
    return reads.members(projectId);
  }

  @Override
  public List<ProjectMember> members(String projectId, String afterUserId, int limit) {
    return reads.members(projectId, afterUserId, limit);
  }
}
