package dev.qinglong.core.policy;

import dev.qinglong.core.kernel.Identifiers;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/** A user's permissions in one Project. An empty set still makes the user a member. */
public record ProjectMember(String projectId, String userId, Set<Permission> permissions) {
  public ProjectMember {
    Identifiers.require("projectId", projectId);
    Identifiers.require("userId", userId);
    permissions =
        permissions == null || permissions.isEmpty()
            ? Collections.unmodifiableSet(EnumSet.noneOf(Permission.class))
            : Collections.unmodifiableSet(EnumSet.copyOf(permissions));
  }
}
