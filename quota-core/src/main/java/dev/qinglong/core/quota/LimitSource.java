package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.WireNamed;

/**
 * Where a decision's effective limit came from: the user's override, the Project's, the default.
 */
public enum LimitSource implements WireNamed {
  /** The process configuration ({@code qinglong.management-quota.limits.*}). */
  DEFAULT,
  /** The Project's policy ({@code PUT …/management-quota/policy}). */
  PROJECT,
  /** The user's override in the Project ({@code PUT …/management-quota/users/{userId}}). */
  USER
}
