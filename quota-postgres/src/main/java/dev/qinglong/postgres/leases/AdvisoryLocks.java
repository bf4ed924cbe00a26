package dev.qinglong.postgres.leases;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Shared helpers for the session advisory locks of this module. */
final class AdvisoryLocks {
  private static final Logger log = LoggerFactory.getLogger(AdvisoryLocks.class);

  private AdvisoryLocks() {}

  /**
   * Tries to take the QingLong advisory lock {@code objectId} in {@code c}'s session, without
   * waiting.
   *
   * @param tryLock {@link GatewaySql#TRY_EXCLUSIVE_LOCK} or {@link GatewaySql#TRY_SHARED_LOCK}
   * @return true if the session now holds it
   */
  static boolean tryLock(Connection c, String tryLock, int objectId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(tryLock)) {
      ps.setInt(1, GatewaySql.LOCK_CLASS);
      ps.setInt(2, objectId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  /** Closes {@code c} (null: nothing), which ends its session's locks; a failure is only logged. */
  static void closeQuietly(Connection c, String what) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (SQLException | RuntimeException e) {
      log.debug("closing the {} connection failed", what, e);
    }
  }

  /**
   * Whether {@code connection}'s session holds the QingLong advisory lock {@code objectId}.
   *
   * @return {@code false} if the connection is closed or the database cannot be reached
   */
  static boolean holds(Connection connection, int objectId) {
    if (connection == null) {
      return false;
    }
    try {
      if (connection.isClosed()) {
        return false;
      }
      try (PreparedStatement ps = connection.prepareStatement(GatewaySql.HOLDS_LOCK)) {
        ps.setQueryTimeout(5);
        ps.setInt(1, GatewaySql.LOCK_CLASS);
        ps.setInt(2, objectId);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() && rs.getBoolean(1);
        }
      }
    } catch (SQLException e) {
      return false;
    }
  }
}
