package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.Identifiers;
import java.util.Objects;

/**
 * One immutable revision of a Project's limits ({@code userId} null) or of one user's override in
 * it, set by {@code setBy} at {@code setAtMs} on the database clock. Revisions count from 1 per
 * (Project, user); a user override's removal is a revision that sets nothing.
 */
public record QuotaLimitsRevision(
    String projectId,
    String userId,
    long revision,
    QuotaLimits limits,
    String setBy,
    long setAtMs) {
  public QuotaLimitsRevision {
    Identifiers.require("projectId", projectId);
    if (userId != null) {
      Identifiers.require("userId", userId);
    }
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(setBy, "setBy");
    if (revision < 1) {
      throw new IllegalArgumentException("revision must be at least 1");
    }
  }
}
