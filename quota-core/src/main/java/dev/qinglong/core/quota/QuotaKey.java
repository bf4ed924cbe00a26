package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.Identifiers;
import java.util.Objects;

/** Identity of one management quota bucket: (Project, subject type, subject id, operation). */
public record QuotaKey(
    String projectId, SubjectType subjectType, String subjectId, QuotaOperation operation) {
  public QuotaKey {
    Identifiers.require("projectId", projectId);
    Objects.requireNonNull(subjectType, "subjectType");
    Identifiers.require("subjectId", subjectId);
    Objects.requireNonNull(operation, "operation");
  }

  /** A bucket for a User, the only subject type there is: quotas count people. */
  public static QuotaKey user(String projectId, String userId, QuotaOperation operation) {
    return new QuotaKey(projectId, SubjectType.USER, userId, operation);
  }
}
