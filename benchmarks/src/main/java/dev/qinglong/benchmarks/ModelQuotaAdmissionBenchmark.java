package dev.qinglong.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.ai.AdmissionOutcome;
import dev.qinglong.core.ai.AdmissionRequest;
import dev.qinglong.core.ai.ModelQuotaStore;
import dev.qinglong.core.ai.ProjectQuotaPolicy;
import dev.qinglong.core.ai.QuotaWindow;
import dev.qinglong.core.ai.Reservation;
import dev.qinglong.core.ai.WindowBudget;
import dev.qinglong.jdbc.JdbcModelQuotaStore;
import dev.qinglong.postgres.PostgresDialect;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.PostgresRoles;
import dev.qinglong.postgres.backend.SplitModelQuotaStore;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.SqliteDialect;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Measures one admission (the whole transaction: clock, policy reads, window heads, fence, StepRun
 * update, two inserts) when the window already holds 10 and 100,000 reservations, on SQLite and on
 * PostgreSQL. The window is seeded with consistent running totals by SQL (admitting 100,000 times
 * through the store would only measure the seeding); the head's digest is then computed by the
 * domain, so admission verifies it exactly as in production.
 *
 * <p>For contrast it also times the query admission deliberately avoids: {@code count(*)} and
 * {@code sum(reserved_tokens)} over the window. Prints a table and writes JSON to the path given as
 * the first argument. Timings vary by machine; no test asserts on them.
 */
public final class ModelQuotaAdmissionBenchmark {
  private static final int[] SIZES = {10, 100_000};
  private static final int WARMUP = 50;
  private static final int MEASURED = 300;
  private static final long DAY_MS = QuotaWindow.ONE_DAY.millis();

  private record Result(
      String store, int reservations, double medianMs, double p95Ms, double sumMedianMs) {}

  private ModelQuotaAdmissionBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path json = Path.of(args.length > 0 ? args[0] : "model-quota-admission.json");
    List<Result> results = new ArrayList<>();

    Path dir = Files.createTempDirectory("qinglong-bench");
    try (HikariDataSource sqlite = SqliteDatabase.open(dir.resolve("qinglong.db"))) {
      SqliteDatabase.migrate(sqlite);
      SqliteDatabase.migrateAi(sqlite);
      ModelQuotaStore store = new JdbcModelQuotaStore(sqlite, SqliteDialect.INSTANCE);
      for (int n : SIZES) {
        results.add(run("sqlite", store, sqlite, "", n));
      }
    }

    TestDatabase database = PostgresTestServer.get().createDatabase("bench");
    try (HikariDataSource owner = database.newDataSource(2)) {
      PostgresRoles.bootstrap(owner);
      PostgresMigrations.migrate(owner);
      PostgresMigrations.migrateAi(owner);
      try (HikariDataSource runtime = rolePool(database, PostgresRoles.RUNTIME);
          HikariDataSource admin = rolePool(database, PostgresRoles.ADMIN)) {
        // Policy writes as ql3_admin, as PostgresBackend wires them.
        ModelQuotaStore store =
            new SplitModelQuotaStore(
                new JdbcModelQuotaStore(runtime, PostgresDialect.INSTANCE),
                new JdbcModelQuotaStore(admin, PostgresDialect.INSTANCE));
        for (int n : SIZES) {
          results.add(run("postgres", store, owner, "qinglong.", n));
        }
      }
    }

    StringBuilder table = new StringBuilder();
    table.append(
        String.format(
            "%-9s %13s %18s %15s %22s%n",
            "store", "reservations", "admit median ms", "admit p95 ms", "window SUM median ms"));
    StringBuilder out = new StringBuilder("[\n");
    for (int i = 0; i < results.size(); i++) {
      Result r = results.get(i);
      table.append(
          String.format(
              Locale.ROOT,
              "%-9s %13d %18.3f %15.3f %22.3f%n",
              r.store(),
              r.reservations(),
              r.medianMs(),
              r.p95Ms(),
              r.sumMedianMs()));
      out.append(
          String.format(
              Locale.ROOT,
              "  {\"store\":\"%s\",\"reservationsInWindow\":%d,\"admissions\":%d,"
                  + "\"admitMedianMs\":%.4f,\"admitP95Ms\":%.4f,\"windowSumMedianMs\":%.4f}%s%n",
              r.store(),
              r.reservations(),
              MEASURED,
              r.medianMs(),
              r.p95Ms(),
              r.sumMedianMs(),
              i + 1 < results.size() ? "," : ""));
    }
    out.append("]\n");
    System.out.print(table);
    Files.createDirectories(json.toAbsolutePath().getParent());
    Files.writeString(json, out);
    System.out.println("JSON written to " + json);
    deleteTree(dir);
  }

  private static Result run(
      String name, ModelQuotaStore store, DataSource owner, String schema, int seeded)
      throws SQLException {
    String project = "bench-" + seeded;
    store.putModelPolicy(project, "m1", 1, null);
    ProjectQuotaPolicy quota =
        store.putProjectQuota(
            project, QuotaWindow.ONE_DAY, 1_000_000_000L, 1_000_000_000_000L, null);
    long windowStart = store.currentWindowUsage(project).usage().window().windowStartMs();
    seed(owner, schema, quota, windowStart, seeded);

    int total = WARMUP + MEASURED;
    for (int i = 0; i < total; i++) {
      store.createStepRun(project, "s" + i, "run", "m1");
    }
    long[] nanos = new long[MEASURED];
    for (int i = 0; i < total; i++) {
      AdmissionRequest request = new AdmissionRequest(project, "inv" + i, "s" + i);
      long start = System.nanoTime();
      AdmissionOutcome outcome = store.admit(request);
      long elapsed = System.nanoTime() - start;
      if (!(outcome instanceof AdmissionOutcome.Admitted)) {
        throw new IllegalStateException("benchmark admission not admitted: " + outcome);
      }
      if (i >= WARMUP) {
        nanos[i - WARMUP] = elapsed;
      }
    }
    long usage = store.currentWindowUsage(project).usage().invocations();
    if (usage != seeded + total) {
      throw new IllegalStateException("window holds " + usage + ", expected " + (seeded + total));
    }
    Arrays.sort(nanos);
    double sumMedian = windowSumMedianMs(owner, schema, project, windowStart);
    return new Result(
        name, seeded, nanos[MEASURED / 2] / 1e6, nanos[(int) (MEASURED * 0.95)] / 1e6, sumMedian);
  }

  /**
   * Inserts {@code n} reservations of one token each with running totals 1..n, then gives the
   * latest one the digest the domain computes for it.
   */
  private static void seed(
      DataSource owner, String schema, ProjectQuotaPolicy quota, long windowStart, int n)
      throws SQLException {
    String select =
        " SELECT ?, 'seed-' || i, 'seed-s-' || i, 'run', 'm1', 1, ?, ?, ?, ?, ?, NULL, 1, NULL,"
            + " i, i, i, 0, ?, ?";
    String columns =
        "INSERT INTO "
            + schema
            + "model_invocation_reservations (project_id, invocation_id, step_run_id, run_id,"
            + " model_id, model_policy_revision, quota_policy_revision, window_start_ms,"
            + " window_ms, budget_max_invocations, budget_max_tokens, budget_max_cost_micros,"
            + " reserved_tokens, reserved_cost_micros, window_seq, window_invocations,"
            + " window_reserved_tokens, window_reserved_cost_micros, reserved_at_ms, digest)";
    String sql =
        schema.isEmpty()
            ? columns
                + " WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?)"
                + select
                + " FROM g"
            : columns + select + " FROM generate_series(1, ?) AS g(i)";
    String placeholder = "sha256:" + "0".repeat(64);
    try (Connection c = owner.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      int p = 1;
      if (schema.isEmpty()) {
        ps.setInt(p++, n);
      }
      ps.setString(p++, quota.projectId());
      ps.setLong(p++, quota.revision());
      ps.setLong(p++, windowStart);
      ps.setLong(p++, DAY_MS);
      ps.setLong(p++, quota.maxInvocations());
      ps.setLong(p++, quota.maxTokens());
      ps.setLong(p++, windowStart);
      ps.setString(p++, placeholder);
      if (!schema.isEmpty()) {
        ps.setInt(p, n);
      }
      ps.executeUpdate();
    }
    Reservation head =
        Reservation.create(
            quota.projectId(),
            "seed-" + n,
            "seed-s-" + n,
            "run",
            "m1",
            1,
            quota.revision(),
            windowStart,
            DAY_MS,
            new WindowBudget(quota.maxInvocations(), quota.maxTokens(), null),
            1,
            null,
            n,
            n,
            n,
            0,
            windowStart);
    try (Connection c = owner.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE "
                    + schema
                    + "model_invocation_reservations SET digest = ?"
                    + " WHERE project_id = ? AND invocation_id = ?")) {
      ps.setString(1, head.digest().value());
      ps.setString(2, quota.projectId());
      ps.setString(3, head.invocationId());
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("seeded head missing");
      }
    }
    if (!schema.isEmpty()) {
      try (Connection c = owner.getConnection();
          PreparedStatement ps =
              c.prepareStatement("ANALYZE " + schema + "model_invocation_reservations")) {
        ps.execute();
      }
    }
  }

  private static double windowSumMedianMs(
      DataSource owner, String schema, String project, long windowStart) throws SQLException {
    long[] nanos = new long[21];
    String sql =
        "SELECT count(*), sum(reserved_tokens) FROM "
            + schema
            + "model_invocation_reservations"
            + " WHERE project_id = ? AND window_start_ms = ? AND window_ms = ?";
    try (Connection c = owner.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < nanos.length; i++) {
        ps.setString(1, project);
        ps.setLong(2, windowStart);
        ps.setLong(3, DAY_MS);
        long start = System.nanoTime();
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
        }
        nanos[i] = System.nanoTime() - start;
      }
    }
    Arrays.sort(nanos);
    return nanos[nanos.length / 2] / 1e6;
  }

  private static HikariDataSource rolePool(TestDatabase database, String role) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("bench-" + role);
    config.setJdbcUrl(database.jdbcUrl());
    config.setUsername(role);
    config.setSchema(PostgresMigrations.SCHEMA);
    config.setMaximumPoolSize(2);
    return new HikariDataSource(config);
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
