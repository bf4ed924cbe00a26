package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.WireNamed;
import dev.qinglong.core.quota.QuotaLimits;
import dev.qinglong.core.quota.QuotaLimitsRevision;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ShadowRefusal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The management-quota limit revisions (docs/stores.md#limits-as-data): {@code
 * management_quota_limit_revisions} (who, when) and {@code management_quota_limits} (one row per
 * operation and revision, NULL where the revision sets nothing). User id {@code ''} is the
 * Project's own policy. Written once: both databases run these statements. The deciding statements
 * read the same rows in their own SQL ({@link JdbcDialect#decideStatement}).
 */
final class QuotaLimitRows {
  /** The user id of a Project's own policy: no user id is empty. */
  static final String PROJECT = "";

  private QuotaLimitRows() {}

  private static String stored(String userId) {
    return userId == null ? PROJECT : userId;
  }

  private static final String LATEST_REVISION =
      """
      SELECT max(revision) FROM management_quota_limit_revisions
      WHERE project_id = ? AND user_id = ?
      """;

  /** One revision with its rows (none for an operation it predates). */
  private static final String REVISION =
      """
      SELECT r.revision, r.set_by, r.set_at_ms, l.operation, l.limit_value, l.shadow_limit
      FROM management_quota_limit_revisions r
      LEFT JOIN management_quota_limits l
        ON l.project_id = r.project_id AND l.user_id = r.user_id AND l.revision = r.revision
      WHERE r.project_id = ? AND r.user_id = ?
        AND r.revision = (SELECT max(x.revision) FROM management_quota_limit_revisions x
                          WHERE x.project_id = ? AND x.user_id = ?)
      ORDER BY l.operation
      """;

  /** A page of the users whose latest revision sets something, with that revision's rows. */
  private static final String USERS =
      """
      SELECT p.user_id, p.revision, p.set_by, p.set_at_ms, l.operation, l.limit_value,
             l.shadow_limit
      FROM (SELECT r.user_id, r.revision, r.set_by, r.set_at_ms
            FROM management_quota_limit_revisions r
            WHERE r.project_id = ? AND r.user_id > ?
              AND r.revision = (SELECT max(x.revision) FROM management_quota_limit_revisions x
                                WHERE x.project_id = r.project_id AND x.user_id = r.user_id)
              AND EXISTS (SELECT 1 FROM management_quota_limits s
                          WHERE s.project_id = r.project_id AND s.user_id = r.user_id
                            AND s.revision = r.revision
                            AND (s.limit_value IS NOT NULL OR s.shadow_limit IS NOT NULL))
            ORDER BY r.user_id
            LIMIT ?) p
      JOIN management_quota_limits l
        ON l.project_id = ? AND l.user_id = p.user_id AND l.revision = p.revision
      ORDER BY p.user_id, l.operation
      """;

  private static final String INSERT_REVISION =
      """
      INSERT INTO management_quota_limit_revisions
        (project_id, user_id, revision, set_by, set_at_ms)
      VALUES (?, ?, ?, ?, %s)
      """;

  private static final String INSERT_LIMIT =
      """
      INSERT INTO management_quota_limits
        (project_id, user_id, operation, revision, limit_value, shadow_limit)
      VALUES (?, ?, ?, ?, ?, ?)
      """;

  /**
   * The Project's buckets in their current window past the shadow limit in force for them (the
   * user's latest shadow value, else the Project's), on the database clock {@code %s}.
   */
  private static final String SHADOW_REFUSALS =
      """
      SELECT s.subject_id, s.operation, s.consumed_count, s.shadow, s.window_started_at_ms
      FROM (SELECT b.subject_id, b.operation, b.consumed_count, b.window_started_at_ms,
                   coalesce(
                     (SELECT l.shadow_limit FROM management_quota_limits l
                      WHERE l.project_id = b.project_id AND l.user_id = b.subject_id
                        AND l.operation = b.operation
                      ORDER BY l.revision DESC LIMIT 1),
                     (SELECT l.shadow_limit FROM management_quota_limits l
                      WHERE l.project_id = b.project_id AND l.user_id = ''
                        AND l.operation = b.operation
                      ORDER BY l.revision DESC LIMIT 1)) AS shadow
            FROM plugin_package_management_quota_buckets b
            WHERE b.project_id = ? AND b.subject_type = 'user'
              AND b.window_started_at_ms + ? > %s) s
      WHERE s.shadow IS NOT NULL AND s.consumed_count > s.shadow
      ORDER BY s.consumed_count - s.shadow DESC, s.subject_id, s.operation
      LIMIT ?
      """;

  /** The latest revision of the Project ({@code userId} null) or of a user's override. */
  static Optional<QuotaLimitsRevision> latest(Connection c, String projectId, String userId)
      throws SQLException {
    String user = stored(userId);
    try (PreparedStatement ps = c.prepareStatement(REVISION)) {
      JdbcRows.bind(ps, projectId, user, projectId, user);
      try (ResultSet rs = ps.executeQuery()) {
        Builder b = null;
        while (rs.next()) {
          if (b == null) {
            b = new Builder(projectId, userId, rs.getLong(1), rs.getString(2), rs.getLong(3));
          }
          b.add(rs, 4);
        }
        return b == null ? Optional.empty() : Optional.of(b.build());
      }
    }
  }

  /** A page of user overrides (see {@link #USERS}). */
  static List<QuotaLimitsRevision> users(
      Connection c, String projectId, String afterUserId, int size) throws SQLException {
    List<QuotaLimitsRevision> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(USERS)) {
      JdbcRows.bind(ps, projectId, afterUserId == null ? PROJECT : afterUserId, size, projectId);
      try (ResultSet rs = ps.executeQuery()) {
        Builder b = null;
        while (rs.next()) {
          String user = rs.getString(1);
          long revision = rs.getLong(2);
          if (b == null || !b.userId.equals(user) || b.revision != revision) {
            if (b != null) {
              out.add(b.build());
            }
            b = new Builder(projectId, user, revision, rs.getString(3), rs.getLong(4));
          }
          b.add(rs, 5);
        }
        if (b != null) {
          out.add(b.build());
        }
      }
    }
    return out;
  }

  /**
   * Appends the next revision with a row per operation (NULL where {@code limits} sets nothing), on
   * the database clock, unless the latest already sets exactly this; the revision in force
   * afterwards, and whether it was written.
   */
  static Written append(
      Connection c,
      JdbcDialect dialect,
      String projectId,
      String userId,
      QuotaLimits limits,
      String setBy)
      throws SQLException {
    Optional<QuotaLimitsRevision> latest = latest(c, projectId, userId);
    if (latest.isPresent() && latest.get().limits().equals(limits)) {
      return new Written(latest.get(), false);
    }
    String user = stored(userId);
    Long max =
        JdbcRows.one(
            c,
            LATEST_REVISION,
            "quota limit revision",
            rs -> JdbcRows.nullableLong(rs, 1),
            projectId,
            user);
    long revision = (max == null ? 0 : max) + 1;
    JdbcRows.update(
        c, INSERT_REVISION.formatted(dialect.nowMs()), projectId, user, revision, setBy);
    try (PreparedStatement ps = c.prepareStatement(INSERT_LIMIT)) {
      for (QuotaOperation op : QuotaOperation.values()) {
        ps.setString(1, projectId);
        ps.setString(2, user);
        ps.setString(3, op.wireName());
        ps.setLong(4, revision);
        JdbcRows.setNullableInt(ps, 5, limits.limit(op));
        JdbcRows.setNullableInt(ps, 6, limits.shadowLimit(op));
        ps.addBatch();
      }
      ps.executeBatch();
    }
    return new Written(
        latest(c, projectId, userId)
            .orElseThrow(() -> new StoreUnavailableException("quota limit revision vanished")),
        true);
  }

  /** A revision in force after {@link #append}; {@code written} false when it was already. */
  record Written(QuotaLimitsRevision revision, boolean written) {}

  /**
   * Who a shadow limit would have refused in the current windows (see {@link #SHADOW_REFUSALS}).
   */
  static List<ShadowRefusal> shadowRefusals(
      Connection c, JdbcDialect dialect, String projectId, Duration window, int size)
      throws SQLException {
    return JdbcRows.all(
        c,
        SHADOW_REFUSALS.formatted(dialect.nowMs()),
        "shadow refusal",
        rs ->
            new ShadowRefusal(
                rs.getString(1),
                WireNamed.stored(QuotaOperation.class, rs.getString(2)),
                rs.getInt(3),
                rs.getInt(4),
                rs.getLong(5)),
        projectId,
        window.toMillis(),
        size);
  }

  /** Collects one revision's rows. */
  private static final class Builder {
    private final String projectId;
    private final String userId;
    private final long revision;
    private final String setBy;
    private final long setAtMs;
    private final Map<QuotaOperation, Integer> limits = new EnumMap<>(QuotaOperation.class);
    private final Map<QuotaOperation, Integer> shadows = new EnumMap<>(QuotaOperation.class);

    Builder(String projectId, String userId, long revision, String setBy, long setAtMs) {
      this.projectId = projectId;
      this.userId = userId;
      this.revision = revision;
      this.setBy = setBy;
      this.setAtMs = setAtMs;
    }

    /** The row's (operation, limit_value, shadow_limit) from column {@code first}; none: skip. */
    void add(ResultSet rs, int first) throws SQLException {
      String operation = rs.getString(first);
      if (operation == null) {
        return;
      }
      // An operation this code does not know (a newer schema's) is not part of what it enforces.
      Optional<QuotaOperation> op = WireNamed.lookup(QuotaOperation.class, operation);
      if (op.isEmpty()) {
        return;
      }
      Integer limit = JdbcRows.nullableInt(rs, first + 1);
      Integer shadow = JdbcRows.nullableInt(rs, first + 2);
      if (limit != null) {
        limits.put(op.get(), limit);
      }
      if (shadow != null) {
        shadows.put(op.get(), shadow);
      }
    }

    QuotaLimitsRevision build() {
      try {
        return new QuotaLimitsRevision(
            projectId,
            userId == null || userId.isEmpty() ? null : userId,
            revision,
            new QuotaLimits(limits, shadows),
            setBy,
            setAtMs);
      } catch (RuntimeException e) {
        throw new StoreUnavailableException("corrupt quota limit revision", e);
      }
    }
  }
}
