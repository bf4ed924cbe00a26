package dev.qinglong.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.backend.BackendParts;
import dev.qinglong.backend.DataSourceDecorator;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.CompletionOutcome;
import dev.qinglong.core.modelquota.CompletionRequest;
import dev.qinglong.core.modelquota.InvocationOutcome;
import dev.qinglong.core.modelquota.ModelQuotaStore;
import dev.qinglong.core.modelquota.ProjectQuotaPolicy;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.Receipt;
import dev.qinglong.core.modelquota.Reservation;
import dev.qinglong.core.modelquota.TokenUsage;
import dev.qinglong.core.modelquota.WindowBudget;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.backend.PostgresBackend;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.backend.SqliteBackend;
import dev.qinglong.testkit.TempDirectories;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The model-invocation quota (docs/model-quota.md): whole lifecycles (create StepRun,
 * reserve/admit, complete/ settle) over HTTP (one runtime user, as a runtime calls it) and
 * in-process for 1 and 100 Projects, and a single admission when the window already holds 10 or
 * 100,000 reservations.
 */
final class ModelQuotaWorkloads {
  private static final String MODEL = "m1";
  private static final long MAX_TOTAL_TOKENS = 4096;
  private static final long WINDOW_INVOCATIONS = 1_000_000_000L;
  private static final long WINDOW_TOKENS = 1_000_000_000_000L;

  /** Outcome labels of a lifecycle. */
  static final String SETTLED = "settled";

  static final String UNAVAILABLE = "unavailable";

  private ModelQuotaWorkloads() {}

  static List<Workload> all() {
    List<Workload> all = new ArrayList<>();
    for (int projects : new int[] {1, 100}) {
      for (int threads : new int[] {8, 32}) {
        all.add(new HttpLifecycles(projects, threads, 2));
      }
      // Full run only: whether the default runtime pool of 2 is what bounds the route.
      all.add(new HttpLifecycles(projects, 32, 8));
      all.add(new StoreLifecycles(projects, 32, 2));
      // The runtime pool default is 2: the same with 8 connections shows what the pool bounds.
      all.add(new StoreLifecycles(projects, 32, 8));
    }
    for (boolean sqlite : new boolean[] {false, true}) {
      for (int seeded : new int[] {10, 100_000}) {
        all.add(new Admission(seeded, sqlite));
      }
    }
    return all;
  }

  static String project(int index) {
    return "p" + index;
  }

  /** Lifecycles spread round-robin over {@code projects} Projects. */
  abstract static class Lifecycles implements Workload {
    final int projects;
    final int threads;
    FreshDatabase db;

    Lifecycles(int projects, int threads) {
      this.projects = projects;
      this.threads = threads;
    }

    @Override
    public String scenario() {
      return "model-lifecycle-" + projects + (projects == 1 ? "-project" : "-projects");
    }

    @Override
    public int threads() {
      return threads;
    }

    @Override
    public FreshDatabase database() {
      return db;
    }

    @Override
    public Map<String, Object> notes() {
      return Map.of("projects", projects, "window", "1d", "runtimePoolSize", 2);
    }

    String projectFor(int thread, long n) {
      return project((int) ((thread + (long) threads * n) % projects));
    }
  }

  /**
   * Over HTTP: three requests per lifecycle (StepRun, reservation, settlement), all of them by the
   * one runtime user {@value #RUNTIME_USER} from every client thread, as a runtime's service
   * account calls it: its per-user bound of the request shield is lifted to {@value #PER_PRINCIPAL}
   * concurrent requests (the default 8 would refuse the 32 threads' requests with 429 {@code
   * too_many_requests}, which is not what is measured).
   */
  static final class HttpLifecycles extends Lifecycles implements Workload.OnApp {
    static final String RUNTIME_USER = "runtime";
    static final int PER_PRINCIPAL = 64;

    private BenchApp app;
    private Http http;

    private final int runtimePoolSize;

    HttpLifecycles(int projects, int threads, int runtimePoolSize) {
      super(projects, threads);
      this.runtimePoolSize = runtimePoolSize;
    }

    @Override
    public String system() {
      return "http-"
          + threads
          + "-threads"
          + (runtimePoolSize == 2 ? "" : "-pool-" + runtimePoolSize);
    }

    @Override
    public boolean inQuickMode() {
      return runtimePoolSize == 2;
    }

    @Override
    public Phases phases(Mode mode) {
      // A freshly started app needs a longer warm-up than in-process code (JIT).
      return Phases.timed(mode, 4, 3, 15, 30);
    }

    @Override
    public void setUp(Mode mode) throws Exception {
      db = new FreshDatabase("lifecycle_http");
      List<String> users = List.of(RUNTIME_USER);
      List<String> projectIds = new ArrayList<>();
      for (int p = 0; p < projects; p++) {
        projectIds.add(project(p));
      }
      db.migrateWithMembers(true, projectIds, users, "model.invoke");
      app =
          ManagementQuotaWorkloads.startApp(
              db,
              users,
              List.of(
                  "--qinglong.ai.enabled=true",
                  "--qinglong.ai.runtime-pool-size=" + runtimePoolSize,
                  "--qinglong.shield.max-concurrent-requests-per-principal=" + PER_PRINCIPAL));
      http = new Http(app);
      for (String p : projectIds) {
        http.expect(
            "PUT",
            "admin",
            "/v1/projects/" + p + "/model-policies/" + MODEL,
            "{\"maxTotalTokens\":" + MAX_TOTAL_TOKENS + ",\"maxCostMicros\":null}",
            200);
        http.expect(
            "PUT",
            "admin",
            "/v1/projects/" + p + "/model-quota",
            "{\"window\":\"1d\",\"maxInvocations\":"
                + WINDOW_INVOCATIONS
                + ",\"maxTokens\":"
                + WINDOW_TOKENS
                + ",\"maxCostMicros\":null}",
            200);
      }
    }

    @Override
    public String call(int thread, long n) throws Exception {
      String p = "/v1/projects/" + projectFor(thread, n);
      String id = thread + "-" + n;
      String[][] steps = {
        {
          p + "/step-runs",
          "{\"stepRunId\":\"s" + id + "\",\"runId\":\"r\",\"modelId\":\"" + MODEL + "\"}"
        },
        {
          p + "/model-invocations",
          "{\"invocationId\":\"i" + id + "\",\"stepRunId\":\"s" + id + "\"}"
        },
        {
          p + "/model-invocations/i" + id + "/completion",
          "{\"outcome\":\"succeeded\",\"usage\":{\"inputTokens\":1,\"outputTokens\":2,"
              + "\"totalTokens\":3},\"costMicros\":null}"
        }
      };
      for (String[] step : steps) {
        HttpResponse<String> r = http.send("POST", RUNTIME_USER, step[0], step[1]);
        if (r.statusCode() == 503) {
          return UNAVAILABLE; // the store's answer under overload: counted, not a harness failure
        }
        if (r.statusCode() != 200 && r.statusCode() != 201) {
          throw Http.unexpected("POST " + step[0], r);
        }
      }
      return SETTLED;
    }

    @Override
    public Map<String, Object> notes() {
      return Map.of(
          "projects",
          projects,
          "window",
          "1d",
          "runtimePoolSize",
          runtimePoolSize,
          "runtimeUsers",
          1,
          "maxConcurrentRequestsPerPrincipal",
          PER_PRINCIPAL);
    }

    @Override
    public BenchApp app() {
      return app;
    }

    @Override
    public void close() throws Exception {
      Workload.closeInOrder(app, db);
    }
  }

  /** In-process through the store the app wires ({@link PostgresBackend}, default pools). */
  static final class StoreLifecycles extends Lifecycles {
    private final int runtimePoolSize;
    private OpenedStore backend;
    private ModelQuotaStore store;

    StoreLifecycles(int projects, int threads, int runtimePoolSize) {
      super(projects, threads);
      this.runtimePoolSize = runtimePoolSize;
    }

    @Override
    public String system() {
      return "store-"
          + threads
          + "-threads"
          + (runtimePoolSize == 2 ? "" : "-pool-" + runtimePoolSize);
    }

    @Override
    public Map<String, Object> notes() {
      return Map.of("projects", projects, "window", "1d", "runtimePoolSize", runtimePoolSize);
    }

    @Override
    public void setUp(Mode mode) throws Exception {
      db = new FreshDatabase("lifecycle_store");
      backend =
          PostgresBackend.open(
              ManagementQuotaWorkloads.settings(db, 2, runtimePoolSize),
              new BackendParts(true, true, false, false),
              DataSourceDecorator.NONE);
      store = backend.modelQuota().orElseThrow();
      for (int p = 0; p < projects; p++) {
        store.putModelPolicy(project(p), MODEL, MAX_TOTAL_TOKENS, null);
        store.putProjectQuota(
            project(p), QuotaWindow.ONE_DAY, WINDOW_INVOCATIONS, WINDOW_TOKENS, null);
      }
    }

    @Override
    public String call(int thread, long n) {
      try {
        return lifecycle(thread, n);
      } catch (StoreUnavailableException e) {
        return UNAVAILABLE; // e.g. no pool connection within its timeout: the app answers 503
      }
    }

    private String lifecycle(int thread, long n) {
      String project = projectFor(thread, n);
      String id = thread + "-" + n;
      store.createStepRun(project, "s" + id, "r", MODEL);
      AdmissionOutcome admitted = store.admit(new AdmissionRequest(project, "i" + id, "s" + id));
      if (!(admitted instanceof AdmissionOutcome.Admitted)) {
        throw new IllegalStateException("not admitted: " + admitted);
      }
      CompletionOutcome completed =
          store.complete(
              new CompletionRequest(
                  project, "i" + id, InvocationOutcome.SUCCEEDED, new TokenUsage(1, 2, 3), null));
      if (!(completed instanceof CompletionOutcome.Completed)) {
        throw new IllegalStateException("not completed: " + completed);
      }
      return SETTLED;
    }

    @Override
    public void close() throws Exception {
      Workload.closeInOrder(backend, db);
    }
  }

  /**
   * One admission (the store's whole admission transaction) when the window already holds {@code
   * seeded} reservations. The window is seeded by SQL with consistent running totals (admitting
   * 100,000 times through the store would only measure the seeding); the head's digest is computed
   * by the domain, so admission verifies it exactly as in production. StepRuns are created in the
   * set-up; one client thread; counted phases.
   */
  static final class Admission implements Workload {
    private static final int WARMUP = 100;
    private static final String PROJECT = "adm";
    private final int seeded;
    private final boolean sqlite;
    private FreshDatabase db;
    private Path dir;
    private OpenedStore backend;
    private ModelQuotaStore store;
    private int timed;

    Admission(int seeded, boolean sqlite) {
      this.seeded = seeded;
      this.sqlite = sqlite;
    }

    @Override
    public String scenario() {
      return "model-admission-" + (sqlite ? "sqlite" : "postgres");
    }

    @Override
    public String system() {
      return "store-" + seeded + "-in-window";
    }

    @Override
    public int threads() {
      return 1;
    }

    @Override
    public Phases phases(Mode mode) {
      return Phases.counted(WARMUP, timed);
    }

    @Override
    public FreshDatabase database() {
      return db;
    }

    @Override
    public Map<String, Object> notes() {
      return Map.of("reservationsInWindow", seeded);
    }

    @Override
    public void setUp(Mode mode) throws Exception {
      timed = mode.quick() ? 300 : 2000;
      BackendParts parts = new BackendParts(true, true, false, false);
      if (sqlite) {
        dir = Files.createTempDirectory("qinglong-bench-admission");
        backend =
            SqliteBackend.open(SqliteBackend.file(dir), true, parts, DataSourceDecorator.NONE);
      } else {
        db = new FreshDatabase("admission");
        backend =
            PostgresBackend.open(
                ManagementQuotaWorkloads.settings(db), parts, DataSourceDecorator.NONE);
      }
      store = backend.modelQuota().orElseThrow();
      store.putModelPolicy(PROJECT, MODEL, 1, null);
      ProjectQuotaPolicy quota =
          store.putProjectQuota(
              PROJECT, QuotaWindow.ONE_DAY, WINDOW_INVOCATIONS, WINDOW_TOKENS, null);
      long windowStart = store.currentWindowUsage(PROJECT).usage().window().windowStartMs();
      if (sqlite) {
        try (HikariDataSource owner = SqliteDatabase.open(SqliteBackend.file(dir))) {
          seed(owner, "", quota, windowStart);
        }
      } else {
        try (HikariDataSource owner = db.ownerPool(1)) {
          seed(owner, PostgresMigrations.SCHEMA + ".", quota, windowStart);
        }
      }
      for (int i = 0; i < WARMUP + timed; i++) {
        store.createStepRun(PROJECT, "s" + i, "run", MODEL);
      }
    }

    @Override
    public String call(int thread, long n) {
      AdmissionOutcome outcome = store.admit(new AdmissionRequest(PROJECT, "inv" + n, "s" + n));
      if (!(outcome instanceof AdmissionOutcome.Admitted)) {
        throw new IllegalStateException("not admitted: " + outcome);
      }
      return "admitted";
    }

    /**
     * Inserts {@code seeded} reservations of one token each with running totals 1..n, then gives
     * the latest one the digest the domain computes for it.
     */
    private void seed(DataSource owner, String schema, ProjectQuotaPolicy quota, long windowStart)
        throws Exception {
      long dayMs = QuotaWindow.ONE_DAY.millis();
      String select =
          " SELECT ?, 'seed-' || i, 'seed-s-' || i, 'run', ?, 1, ?, ?, ?, ?, ?, NULL, 1, NULL,"
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
          sqlite
              ? columns
                  + " WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?)"
                  + select
                  + " FROM g"
              : columns + select + " FROM generate_series(1, ?) AS g(i)";
      try (Connection c = owner.getConnection();
          PreparedStatement ps = c.prepareStatement(sql)) {
        int p = 1;
        if (sqlite) {
          ps.setInt(p++, seeded);
        }
        ps.setString(p++, quota.projectId());
        ps.setString(p++, MODEL);
        ps.setLong(p++, quota.revision());
        ps.setLong(p++, windowStart);
        ps.setLong(p++, dayMs);
        ps.setLong(p++, quota.maxInvocations());
        ps.setLong(p++, quota.maxTokens());
        ps.setLong(p++, windowStart);
        ps.setString(p++, "sha256:" + "0".repeat(64));
        if (!sqlite) {
          ps.setInt(p, seeded);
        }
        ps.executeUpdate();
      }
      Reservation head =
          Receipt.sealed(
              digest ->
                  new Reservation(
                      quota.projectId(),
                      "seed-" + seeded,
                      "seed-s-" + seeded,
                      "run",
                      MODEL,
                      1,
                      quota.revision(),
                      windowStart,
                      dayMs,
                      new WindowBudget(quota.maxInvocations(), quota.maxTokens(), null),
                      1,
                      null,
                      seeded,
                      seeded,
                      seeded,
                      0,
                      windowStart,
                      digest));
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
      if (!sqlite) {
        try (Connection c = owner.getConnection();
            PreparedStatement ps =
                c.prepareStatement("ANALYZE " + schema + "model_invocation_reservations")) {
          ps.execute();
        }
      }
    }

    @Override
    public void close() throws Exception {
      Workload.closeInOrder(backend, db, () -> TempDirectories.delete(dir));
    }
  }
}
