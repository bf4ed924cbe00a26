package dev.qinglong.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * Every PostgreSQL role the schemas grant to (docs/security.md), and their one bootstrap. In a
 * cluster they are CloudNativePG managed roles; for development and tests {@link #bootstrap}
 * creates any that are missing (the owner needs CREATEROLE).
 */
public final class PostgresLogins {
  public static final String ADMIN = "ql3_admin";
  public static final String PACKAGE_MANAGER = "ql3_package_manager";
  public static final String PACKAGE_EXECUTOR = "ql3_package_executor";
  public static final String RUNTIME = "ql3_runtime";

  /**
   * The login of read gateways: it runs the shared-download leases and the mode barrier
   * (SELECT/INSERT on {@code download_policy}, SELECT/INSERT/UPDATE on {@code
   * download_slot_leases}) and reads Policy and published artifacts; nothing else.
   */
  public static final String READER = "ql3_reader";

  /**
   * Not a login: no process connects as it. The first released base migration grants it schema
   * usage, so the role must exist for that migration to apply; the bootstrap creates it {@code
   * NOLOGIN}.
   */
  public static final String WORKER_INGRESS = "ql3_worker_ingress";

  /** The management side's logins, which the base schema grants to. */
  public static final List<String> ALL = List.of(ADMIN, PACKAGE_MANAGER, PACKAGE_EXECUTOR, RUNTIME);

  /** Every login a process of some role connects as. */
  public static final List<String> LOGINS =
      List.of(ADMIN, PACKAGE_MANAGER, PACKAGE_EXECUTOR, RUNTIME, READER);

  private PostgresLogins() {}

  /**
   * Creates every missing login as {@code LOGIN NOINHERIT} without a password and without any
   * privilege, and {@link #WORKER_INGRESS} as {@code NOLOGIN}; grants come from the migrations.
   * Safe to run concurrently and repeatedly.
   *
   * @throws IllegalStateException if the owner may not create roles
   */
  public static void bootstrap(DataSource owner) {
    try (Connection c = owner.getConnection();
        Statement st = c.createStatement()) {
      for (String role : LOGINS) {
        st.execute(createRoleIfMissing(role, "LOGIN"));
      }
      st.execute(createRoleIfMissing(WORKER_INGRESS, "NOLOGIN"));
    } catch (SQLException e) {
      throw new IllegalStateException(
          "cannot bootstrap the ql3_* roles (the owner needs CREATEROLE, or create them"
              + " beforehand and set qinglong.postgres.bootstrap-roles=false): "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Creates a role if it does not exist; tolerant of a concurrent bootstrap. The name is one of
   * this class's constants, never user input.
   */
  private static String createRoleIfMissing(String role, String login) {
    return """
        DO $$
        BEGIN
          IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%1$s') THEN
            CREATE ROLE %1$s %2$s NOINHERIT NOCREATEDB NOCREATEROLE;
          END IF;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
          NULL;
        END
        $$
        """
        .formatted(role, login);
  }
}
