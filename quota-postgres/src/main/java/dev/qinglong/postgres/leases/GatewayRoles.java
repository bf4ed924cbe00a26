package dev.qinglong.postgres.leases;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The login role of read gateways. {@value #READER} runs the shared-download leases and the mode
 * barrier: SELECT/INSERT on {@code download_policy}, SELECT/INSERT/UPDATE on {@code
 * download_slot_leases}, nothing else (no DELETE, no ownership, no CREATE). In a cluster it is a
 * CloudNativePG managed role; for development and tests {@link #bootstrap} creates it.
 */
public final class GatewayRoles {
  public static final String READER = "ql3_reader";

  private GatewayRoles() {}

  /**
   * Creates {@value #READER} as {@code LOGIN NOINHERIT} without password or privilege if missing;
   * the grants come from the migrations. Safe to run concurrently and repeatedly.
   *
   * @throws IllegalStateException if the owner may not create roles
   */
  public static void bootstrap(DataSource owner) {
    try (Connection c = owner.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          """
          DO $$
          BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%1$s') THEN
              CREATE ROLE %1$s LOGIN NOINHERIT NOCREATEDB NOCREATEROLE;
            END IF;
          EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;
          END
          $$
          """
              .formatted(READER));
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot bootstrap role "
              + READER
              + " (the owner needs CREATEROLE, or create it beforehand): "
              + e.getMessage(),
          e);
    }
  }
}
