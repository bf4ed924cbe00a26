package dev.qinglong.postgres.leases;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Shared helpers for the session advisory locks of this module. */
final class AdvisoryLocks {
  private AdvisoryLocks() {}

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
