package dev.qinglong.core.quota;

import dev.qinglong.core.kernel.WireNamed;

/**
 * Whose consumption a bucket counts (wire name {@code user}). The subject is always the
 * authenticated User: see docs/design.md#fixed-windows-on-the-database-clock.
 */
public enum SubjectType implements WireNamed {
  USER
}
