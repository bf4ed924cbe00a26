package dev.qinglong.core.policy;

import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.ValidationException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Evaluates the Project Policy. Global administrators implicitly hold {@code project.admin} in
 * every Project (they manage memberships, and may grant themselves more) and read every Project
 * ({@link #requireRead}); everything else comes from the store.
 */
public final class ProjectPolicy {
  private final ProjectPolicyStore store;
  private final Set<String> globalAdmins;

  public ProjectPolicy(ProjectPolicyStore store, Set<String> globalAdmins) {
    this.store = store;
    this.globalAdmins = Set.copyOf(globalAdmins);
  }

  /** The caller's effective permissions in the Project. */
  public Set<Permission> permissions(Principal caller, String projectId) {
    Set<Permission> held = EnumSet.noneOf(Permission.class);
    held.addAll(store.permissionsOf(projectId, caller.userId()));
    if (globalAdmins.contains(caller.userId())) {
      held.add(Permission.PROJECT_ADMIN);
    }
    return held;
  }

  /** Whether the caller is a global administrator (configured, not stored). */
  public boolean isGlobalAdmin(Principal caller) {
    return globalAdmins.contains(caller.userId());
  }

  /**
   * Requires at least one of {@code anyOf}.
   *
   * @throws ForbiddenException if the caller holds none of them
   */
  public Set<Permission> requireAny(Principal caller, String projectId, Permission... anyOf) {
    Set<Permission> held = permissions(caller, projectId);
    for (Permission p : anyOf) {
      if (held.contains(p)) {
        return held;
      }
    }
    throw new ForbiddenException("missing permission");
  }

  /**
   * Requires at least one of {@code anyOf} for a read: a global administrator reads every Project
   * whatever it holds there (it still proposes, decides and inspects only with the permission).
   *
   * @throws ForbiddenException if the caller is no global administrator and holds none of them
   */
  public void requireRead(Principal caller, String projectId, Permission... anyOf) {
    if (!isGlobalAdmin(caller)) {
      requireAny(caller, projectId, anyOf);
    }
  }

  /**
   * Replaces a member's permissions; needs {@code project.admin} in that Project.
   *
   * @throws ForbiddenException if the caller is not a Project (or global) administrator
   */
  public ProjectMember replaceMember(Principal caller, ProjectMember member) {
    requireAny(caller, member.projectId(), Permission.PROJECT_ADMIN);
    store.replaceMember(member);
    return member;
  }

  /**
   * Lists the Project's members; needs some permission in that Project, so the answer for an
   * unknown Project and for a foreign one is the same 403.
   */
  public List<ProjectMember> members(Principal caller, String projectId) {
    Identifiers.require("projectId", projectId);
    if (permissions(caller, projectId).isEmpty()) {
      throw new ForbiddenException("no permission in project");
    }
    return store.members(projectId);
  }

  /** The longest members cursor accepted (an issued one is far shorter). */
  public static final int MAX_CURSOR_LENGTH = 256;

  /** The largest members page. */
  public static final int MAX_MEMBERS_PAGE = 500;

  /** The members page size when the caller gives none. */
  public static final int DEFAULT_MEMBERS_PAGE = 100;

  /**
   * One page of the Project's members in user-id order; needs some permission in that Project (an
   * unknown Project and a foreign one are the same 403).
   *
   * @param limit 1..{@value #MAX_MEMBERS_PAGE}, or null for {@value #DEFAULT_MEMBERS_PAGE}
   * @param cursor null for the first page, else a {@code nextCursor} this service issued
   */
  public MemberPage members(Principal caller, String projectId, Integer limit, String cursor) {
    Identifiers.require("projectId", projectId);
    int size = limit == null ? DEFAULT_MEMBERS_PAGE : limit;
    if (size < 1 || size > MAX_MEMBERS_PAGE) {
      throw new ValidationException("limit", "must be between 1 and " + MAX_MEMBERS_PAGE);
    }
    String after = MemberPage.decode(cursor);
    if (permissions(caller, projectId).isEmpty()) {
      throw new ForbiddenException("no permission in project");
    }
    List<ProjectMember> rows = store.members(projectId, after, size + 1);
    if (rows.size() <= size) {
      return new MemberPage(rows, null);
    }
    List<ProjectMember> page = rows.subList(0, size);
    return new MemberPage(page, MemberPage.encode(page.get(size - 1).userId()));
  }
}
