package dev.qinglong.core.policy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.util.List;
import java.util.Set;

/**
 * Durable Project Policy: which permissions each member holds in each Project. A Project exists
 * exactly when it has at least one member row.
 *
 * <p>Every method throws {@link StoreUnavailableException} when the store cannot answer; callers
 * must then deny (fail closed).
 */
public interface ProjectPolicyStore {

  /**
   * Returns the permissions {@code userId} holds in {@code projectId}; an empty set if the user is
   * not a member, holds nothing, or the Project does not exist. Never null.
   */
  Set<Permission> permissionsOf(String projectId, String userId);

  /**
   * Replaces the member's permission set (creating the membership, and so the Project, if absent).
   * Idempotent: writing the same set twice leaves one identical row.
   */
  void replaceMember(ProjectMember member);

  /** Returns the Project's members ordered by user id; empty if the Project does not exist. */
  List<ProjectMember> members(String projectId);

  /**
   * A page of the Project's members ordered by user id, strictly after {@code afterUserId} (null:
   * from the first); empty if the Project does not exist.
   *
   * @param limit at most this many, {@code >= 1}
   */
  List<ProjectMember> members(String projectId, String afterUserId, int limit);
}
