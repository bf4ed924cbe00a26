package dev.qinglong.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * The login roles of DESIGN §4. In a cluster they are CloudNativePG managed roles; for development
 * and tests {@link #bootstrap} creates any that are missing (the owner needs CREATEROLE).
 */
public final class PostgresRoles {
  public static final String ADMIN = "ql3_admin";
  public static final String PACKAGE_MANAGER = "ql3_package_manager";
  public static final String PACKAGE_EXECUTOR = "ql3_package_executor";
  public static final String RUNTIME = "ql3_runtime";
  public static final String WORKER_INGRESS = "ql3_worker_ingress";
  public static final List<String> ALL =
      List.of(ADMIN, PACKAGE_MANAGER, PACKAGE_EXECUTOR, RUNTIME, WORKER_INGRESS);

  private PostgresRoles() {}

  /**
   * Creates every missing role as {@code LOGIN NOINHERIT} without a password and without any
   * privilege; grants come from the migrations. Safe to run concurrently and repeatedly.
   *
   * @throws IllegalStateException if the owner may not create roles
   */
  public static void bootstrap(DataSource owner) {
    try (Connection c = owner.getConnection();
        Statement st = c.createStatement()) {
      for (String role : ALL) {
        st.execute(createRoleIfMissing(role));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot bootstrap the ql3_* roles (the owner needs CREATEROLE, or create them"
              + " beforehand and set qinglong.postgres.bootstrap-roles=false): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Creates a login role if it does not exist; tolerant of a concurrent bootstrap. The name is one
   * of {@link #ALL}, never user input.
   */
  private static String createRoleIfMissing(String role) {
    return """
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
        .formatted(role);
  }
}
