package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.Identifiers;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectPolicy;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Limits as data (docs/design.md#limits-as-data): a Project's management-quota policy and its user
 * overrides. Only a global administrator changes them (the people who run the platform, not a
 * Project's own administrators, decide how much of it a Project may use); a Project's
 * administrators read them. The configured limits stay the defaults.
 */
public record ManagementQuotaLimits(
    ProjectPolicy policy, ManagementQuotaStore store, ManagementQuotaPolicy defaults) {

  /** The largest page of user overrides. */
  public static final int MAX_PAGE = 500;

  /** The page of user overrides when the caller gives no size. */
  public static final int DEFAULT_PAGE = 100;

  /** The most shadow refusals one read lists (the fullest windows first). */
  public static final int MAX_SHADOW_REFUSALS = 100;

  public ManagementQuotaLimits {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(defaults, "defaults");
  }

  /**
   * Sets the Project's limits (a new revision).
   *
   * @throws ValidationException if {@code projectId} breaks the grammar
   * @throws ForbiddenException unless the caller is a global administrator (nothing written)
   * @throws StoreUnavailableException if the store cannot write it
   */
  public QuotaLimitsRevision putProject(Principal caller, String projectId, QuotaLimits limits) {
    Identifiers.require("projectId", projectId);
    Objects.requireNonNull(limits, "limits");
    requireGlobalAdmin(caller);
    return store.putLimits(projectId, null, limits, caller.userId());
  }

  /**
   * Sets one user's override in the Project (a new revision); {@link QuotaLimits#NONE} removes it.
   *
   * @throws ValidationException if {@code projectId} or {@code userId} breaks the grammar
   * @throws ForbiddenException unless the caller is a global administrator (nothing written)
   * @throws StoreUnavailableException if the store cannot write it
   */
  public QuotaLimitsRevision putUser(
      Principal caller, String projectId, String userId, QuotaLimits limits) {
    Identifiers.require("projectId", projectId);
    Identifiers.require("userId", userId);
    Objects.requireNonNull(limits, "limits");
    requireGlobalAdmin(caller);
    return store.putLimits(projectId, userId, limits, caller.userId());
  }

  /**
   * The Project's policy, one page of its user overrides and the current shadow refusals; needs
   * {@code project.admin} (global administrators hold it everywhere).
   *
   * @param size 1..{@value #MAX_PAGE}, or null for {@value #DEFAULT_PAGE}
   * @param cursor null for the first page, else a {@code nextCursor} this service issued
   * @throws ValidationException for a bad Project id, size or cursor
   * @throws ForbiddenException without {@code project.admin}
   * @throws StoreUnavailableException if the store cannot answer (never the defaults in its place)
   */
  public QuotaPolicyPage read(Principal caller, String projectId, Integer size, String cursor) {
    Identifiers.require("projectId", projectId);
    int pageSize = size == null ? DEFAULT_PAGE : size;
    if (pageSize < 1 || pageSize > MAX_PAGE) {
      throw new ValidationException("limit", "must be between 1 and " + MAX_PAGE);
    }
    String after = QuotaPolicyPage.decode(cursor);
    policy.requireAny(caller, projectId, Permission.PROJECT_ADMIN);
    Map<QuotaOperation, Integer> defaultLimits = new EnumMap<>(QuotaOperation.class);
    for (QuotaOperation op : QuotaOperation.values()) {
      defaultLimits.put(op, defaults.limit(op));
    }
    List<QuotaLimitsRevision> rows = store.userLimits(projectId, after, pageSize + 1);
    String next = null;
    if (rows.size() > pageSize) {
      rows = rows.subList(0, pageSize);
      next = QuotaPolicyPage.encode(rows.get(pageSize - 1).userId());
    }
    return new QuotaPolicyPage(
        defaults.window().toMillis(),
        defaultLimits,
        store.limits(projectId, null),
        rows,
        next,
        store.shadowRefusals(projectId, defaults.window(), MAX_SHADOW_REFUSALS));
  }

  private void requireGlobalAdmin(Principal caller) {
    if (!policy.isGlobalAdmin(caller)) {
      throw new ForbiddenException("only a global administrator sets management-quota limits");
    }
  }
}
