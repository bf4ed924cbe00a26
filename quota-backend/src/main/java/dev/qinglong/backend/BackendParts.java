package dev.qinglong.backend;

/**
 * What one process asks its store backend to open, decided by its role. A backend opens exactly
 * these parts and no pool, login or migration beyond them.
 *
 * @param governance the management API: Project Policy (reads and member writes), the durable
 *     management quota and plugin-package governance (PostgreSQL: {@code ql3_package_manager} and
 *     {@code ql3_admin}). Roles {@code all} and {@code writer}.
 * @param modelQuota the model-invocation quota store (PostgreSQL: {@code ql3_runtime}, policy
 *     writes through the governance part's {@code ql3_admin}); only with {@code governance} and
 *     {@code qinglong.ai.enabled=true}
 * @param worker the publication worker's lock and its publishing store (PostgreSQL: {@code
 *     ql3_package_executor}). Roles {@code all} and {@code worker}.
 * @param downloads artifact downloads: the download coordination and, without {@code governance},
 *     the read-only Policy and published-artifact reads they need (PostgreSQL: {@code ql3_reader}).
 *     Roles {@code all} and {@code reader}.
 */
public record BackendParts(
    boolean governance, boolean modelQuota, boolean worker, boolean downloads) {
  public BackendParts {
    if (modelQuota && !governance) {
      throw new IllegalArgumentException("the model quota is served with the management API");
    }
  }
}
