package dev.qinglong.postgres.leases;

import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import dev.qinglong.gateway.lease.StoredLeases;
import dev.qinglong.jdbc.JdbcTransactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the stored shared policy and every slot's lease (held, expired or free) in one snapshot,
 * with expiry judged on the database clock. Needs {@code SELECT} on {@code download_policy} and
 * {@code download_slot_leases} ({@code ql3_reader}).
 */
public final class PostgresStoredLeases {
  private PostgresStoredLeases() {}

  /** Reads on {@code connection} (one repeatable-read snapshot; the caller owns the connection). */
  public static StoredLeases read(Connection connection) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    int isolation = connection.getTransactionIsolation();
    connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try {
      return JdbcTransactions.commitOrRollback(connection, PostgresStoredLeases::snapshot);
    } finally {
      connection.setTransactionIsolation(isolation);
      connection.setAutoCommit(autoCommit);
    }
  }

  private static StoredLeases snapshot(Connection connection) throws SQLException {
    Instant now;
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(GatewaySql.DATABASE_NOW_US)) {
      rs.next();
      now = micros(rs.getLong(1));
    }
    SharedDownloadPolicy policy = null;
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(GatewaySql.READ_POLICY)) {
      if (rs.next()) {
        policy = new SharedDownloadPolicy(rs.getLong(1), rs.getLong(2), rs.getInt(3));
      }
    }
    Map<Integer, StoredLeases.Slot> rows = new TreeMap<>();
    try (PreparedStatement s = connection.prepareStatement(GatewaySql.LIST_SLOTS);
        ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        int slot = rs.getInt("slot");
        rows.put(
            slot,
            new StoredLeases.Slot(
                slot,
                rs.getBoolean("live") ? StoredLeases.State.HELD : StoredLeases.State.EXPIRED,
                rs.getLong("generation"),
                micros(rs.getLong("renewed_us")),
                micros(rs.getLong("expires_us"))));
      }
    }
    if (policy == null) {
      return new StoredLeases(null, now, List.copyOf(rows.values()));
    }
    List<StoredLeases.Slot> slots = new ArrayList<>();
    for (int i = 0; i < policy.slots(); i++) {
      StoredLeases.Slot row = rows.remove(i);
      slots.add(
          row != null ? row : new StoredLeases.Slot(i, StoredLeases.State.FREE, 0, null, null));
    }
    // Rows beyond the policy's slot count cannot be taken by a matching gateway; still shown.
    slots.addAll(rows.values());
    return new StoredLeases(policy, now, slots);
  }

  private static Instant micros(long us) {
    return Instant.ofEpochSecond(
        Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000L);
  }
}
