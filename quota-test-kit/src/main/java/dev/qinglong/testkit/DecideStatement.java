package dev.qinglong.testkit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs a dialect's deciding statement directly, bound as {@code JdbcManagementQuotaStore} binds it,
 * for {@link StoreFixture#decide}: a bucket of subject type {@code user} and of any operation name.
 */
public final class DecideStatement {
  private DecideStatement() {}

  /**
   * @return the outcome column's value
   * @throws IllegalStateException wrapping the {@link SQLException} if the statement fails
   */
  public static String run(
      DataSource dataSource,
      String statement,
      String projectId,
      String subjectId,
      String operation,
      String receiptId,
      String requestDigestHex,
      int limit,
      long windowMs) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(statement)) {
      ps.setString(1, projectId);
      ps.setString(2, "user");
      ps.setString(3, subjectId);
      ps.setString(4, operation);
      ps.setString(5, receiptId);
      ps.setString(6, requestDigestHex);
      ps.setLong(7, windowMs);
      ps.setInt(8, limit);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("the deciding statement returned no row");
        }
        return rs.getString(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
