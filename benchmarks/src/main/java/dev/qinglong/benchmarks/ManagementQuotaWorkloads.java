package dev.qinglong.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.backend.BackendParts;
import dev.qinglong.backend.DataSourceDecorator;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.postgres.backend.PostgresBackend;
import dev.qinglong.postgres.backend.PostgresSettings;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.backend.SqliteBackend;
import dev.qinglong.testkit.TempDirectories;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.jdbc.PrimaryKeyMapper;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * The management-quota decision (docs/design.md#management-quota), one call = one decision,
 * measured the same way for every system: distinct users (10,000 users round-robin, limit 600 per
 * 60 s, so nearly all admit) and one hot bucket exhausted before the warm-up (so every call is a
 * rejection while the window lasts).
 */
final class ManagementQuotaWorkloads {
  static final int USERS = 10_000;
  static final int LIMIT = 600;
  static final Duration WINDOW = Duration.ofSeconds(60);
  static final int THREADS = 8;
  static final String PROJECT = "bench";
  static final String HOT_USER = "hot";

  /** What the store workloads open: the management API's parts (governance and its quota). */
  static final BackendParts GOVERNANCE = new BackendParts(true, false, false, false);

  private ManagementQuotaWorkloads() {}

  /** Every system on PostgreSQL for both shapes, then SQLite's store against raw SQLite. */
  static List<Workload> all() {
    List<Workload> all = new ArrayList<>();
    for (Shape shape : Shape.values()) {
      all.add(new RawPostgres(shape));
      all.add(new Bucket4jPostgres(shape, false));
      all.add(new Bucket4jPostgres(shape, true));
      all.add(new StorePostgres(shape, 2));
      all.add(new StorePostgres(shape, THREADS)); // full run only
      all.add(new HttpPostgres(shape, 2));
      all.add(new HttpPostgres(shape, THREADS)); // full run only
    }
    all.add(new RawSqlite(Shape.DISTINCT));
    all.add(new RawSqlite(Shape.DISTINCT, false));
    all.add(new StoreSqlite(Shape.DISTINCT));
    return all;
  }

  enum Shape {
    DISTINCT("distinct-users"),
    HOT("hot-bucket-exhausted");

    final String scenario;

    Shape(String scenario) {
      this.scenario = scenario;
    }
  }

  /** Outcome labels. */
  static final String ALLOWED = "allowed";

  static final String REJECTED = "rejected";

  /** The shared shape of every management-quota workload; subclasses decide one call. */
  abstract static class QuotaWorkload implements Workload {
    final Shape shape;
    private final String system;

    QuotaWorkload(Shape shape, String system) {
      this.shape = shape;
      this.system = system;
    }

    @Override
    public String scenario() {
      return shape.scenario;
    }

    @Override
    public String system() {
      return system;
    }

    @Override
    public int threads() {
      return THREADS;
    }

    @Override
    public void setUp(Mode mode) throws Exception {
      open();
      if (shape == Shape.HOT) {
        fillHotBucket();
      }
    }

    /** Spends the hot bucket's whole limit, from {@link #THREADS} threads (not timed). */
    private void fillHotBucket() throws Exception {
      ExecutorService pool = Executors.newFixedThreadPool(THREADS);
      try {
        List<Future<?>> fills = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
          int thread = t;
          fills.add(
              pool.submit(
                  () -> {
                    for (int i = thread; i < LIMIT; i += THREADS) {
                      String outcome = decide(HOT_USER, "fill-" + i);
                      if (!outcome.equals(ALLOWED)) {
                        throw new IllegalStateException("filling the hot bucket: " + outcome);
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> f : fills) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
    }

    @Override
    public String call(int thread, long n) throws Exception {
      String user = shape == Shape.HOT ? HOT_USER : "u" + ((thread + THREADS * n) % USERS);
      return decide(user, "r" + thread + "-" + n);
    }

    @Override
    public Map<String, Object> notes() {
      Map<String, Object> notes = new LinkedHashMap<>();
      notes.put("users", shape == Shape.HOT ? 1 : USERS);
      notes.put("limit", LIMIT);
      notes.put("windowSeconds", WINDOW.toSeconds());
      notes.putAll(moreNotes());
      return notes;
    }

    Map<String, Object> moreNotes() {
      return Map.of();
    }

    /** Opens pools, schema, processes. */
    abstract void open() throws Exception;

    /** What {@link #close()} closes first (pools, a backend, an app); null if nothing is open. */
    abstract AutoCloseable opened();

    /** One decision for {@code user} with receipt {@code receipt}: an outcome label. */
    abstract String decide(String user, String receipt) throws Exception;
  }

  /** A PostgreSQL workload: its own fresh database. */
  abstract static class PostgresWorkload extends QuotaWorkload {
    FreshDatabase db;

    PostgresWorkload(Shape shape, String system) {
      super(shape, system);
    }

    @Override
    public FreshDatabase database() {
      return db;
    }

    @Override
    void open() throws Exception {
      db = new FreshDatabase(system().replace('-', '_'));
      openOn(db);
    }

    abstract void openOn(FreshDatabase db) throws Exception;

    @Override
    public void close() throws Exception {
      Workload.closeInOrder(opened(), db);
    }
  }

  /**
   * A baseline on one pool of {@link #THREADS} connections of the database's owner, which it
   * creates its table on.
   */
  abstract static class OwnerPoolWorkload extends PostgresWorkload {
    HikariDataSource pool;

    OwnerPoolWorkload(Shape shape, String system) {
      super(shape, system);
    }

    @Override
    void openOn(FreshDatabase db) throws Exception {
      pool = db.ownerPool(THREADS);
      openOn(pool);
    }

    abstract void openOn(HikariDataSource pool) throws Exception;

    @Override
    Map<String, Object> moreNotes() {
      return Map.of("poolSize", THREADS);
    }

    @Override
    AutoCloseable opened() {
      return pool;
    }
  }

  /**
   * The raw baselines' table, on PostgreSQL and on SQLite alike: its receipt ids are a JSON array,
   * {@code receiptsType} ({@code jsonb}, or {@code TEXT} on SQLite, which has no JSON type). SQLite
   * reads the other types by their affinity: {@code text} is TEXT, {@code bigint} INTEGER.
   */
  static void createRawTable(DataSource pool, String receiptsType) throws SQLException {
    execute(
        pool,
        """
        CREATE TABLE raw_quota_buckets (
          project_id text NOT NULL, subject_type text NOT NULL, subject_id text NOT NULL,
          operation text NOT NULL, window_started_at_ms bigint NOT NULL,
          consumed_count integer NOT NULL, receipt_ids %s NOT NULL,
          updated_at_ms bigint NOT NULL,
          PRIMARY KEY (project_id, subject_type, subject_id, operation))
        """
            .formatted(receiptsType));
  }

  /** Runs one statement (a table's creation) on a connection of {@code pool}. */
  static void execute(DataSource pool, String sql) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /**
   * The textbook fixed-window statement as a user would write it: one {@code INSERT … ON CONFLICT
   * DO UPDATE … WHERE … RETURNING} per call, autocommit, receipts as a {@code jsonb} array of ids,
   * the database clock. A full window (or a replay) returns no row and is not read back.
   */
  static final class RawPostgres extends OwnerPoolWorkload {
    private static final String NOW = "floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint";
    private static final String UPSERT =
        """
        INSERT INTO raw_quota_buckets AS b
          (project_id, subject_type, subject_id, operation,
           window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
        VALUES (?, 'user', ?, 'plugin-package.inspect', %1$s, 1, jsonb_build_array(?::text), %1$s)
        ON CONFLICT (project_id, subject_type, subject_id, operation) DO UPDATE SET
          window_started_at_ms = CASE WHEN b.window_started_at_ms + ? <= excluded.updated_at_ms
                                      THEN excluded.window_started_at_ms
                                      ELSE b.window_started_at_ms END,
          consumed_count = CASE WHEN b.window_started_at_ms + ? <= excluded.updated_at_ms
                                THEN 1 ELSE b.consumed_count + 1 END,
          receipt_ids = CASE WHEN b.window_started_at_ms + ? <= excluded.updated_at_ms
                             THEN excluded.receipt_ids
                             ELSE b.receipt_ids || excluded.receipt_ids END,
          updated_at_ms = excluded.updated_at_ms
        WHERE b.window_started_at_ms + ? <= excluded.updated_at_ms
           OR (b.consumed_count < ? AND NOT b.receipt_ids @> excluded.receipt_ids)
        RETURNING consumed_count
        """
            .formatted(NOW);

    RawPostgres(Shape shape) {
      super(shape, "raw-jdbc");
    }

    @Override
    void openOn(HikariDataSource pool) throws SQLException {
      createRawTable(pool, "jsonb");
    }

    @Override
    String decide(String user, String receipt) throws Exception {
      return rawUpsert(pool, UPSERT, user, receipt, false);
    }
  }

  /** Runs a raw upsert with PostgreSQL-style positional parameters or SQLite's numbered ones. */
  static String rawUpsert(
      DataSource pool, String sql, String user, String receipt, boolean numbered) throws Exception {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, PROJECT);
      ps.setString(2, user);
      ps.setString(3, receipt);
      // The window is named four times: four positional parameters, or the one numbered ?4.
      int windows = numbered ? 1 : 4;
      for (int i = 4; i < 4 + windows; i++) {
        ps.setLong(i, WINDOW.toMillis());
      }
      ps.setInt(4 + windows, LIMIT);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? ALLOWED : REJECTED;
      }
    }
  }

  /**
   * Bucket4j 8.14 on PostgreSQL ({@code com.bucket4j:bucket4j_jdk17-postgresql}), either lock mode,
   * with a bucket of 600 tokens refilled all at once every 60 s (the closest to a fixed window),
   * one {@code tryConsume(1)} per call.
   */
  static final class Bucket4jPostgres extends OwnerPoolWorkload {
    private final boolean advisory;
    private ProxyManager<String> buckets;
    private final BucketConfiguration configuration =
        BucketConfiguration.builder()
            .addLimit(Bandwidth.builder().capacity(LIMIT).refillIntervally(LIMIT, WINDOW).build())
            .build();

    Bucket4jPostgres(Shape shape, boolean advisory) {
      super(shape, advisory ? "bucket4j-advisory" : "bucket4j-select-for-update");
      this.advisory = advisory;
    }

    @Override
    void openOn(HikariDataSource pool) throws SQLException {
      execute(pool, "CREATE TABLE bucket (id text PRIMARY KEY, state bytea, expires_at bigint)");
      buckets =
          advisory
              ? Bucket4jPostgreSQL.advisoryLockBasedBuilder(pool)
                  .primaryKeyMapper(PrimaryKeyMapper.STRING)
                  .build()
              : Bucket4jPostgreSQL.selectForUpdateBasedBuilder(pool)
                  .primaryKeyMapper(PrimaryKeyMapper.STRING)
                  .build();
    }

    @Override
    String decide(String user, String receipt) {
      // Bucket4j has no receipts: a retry would be counted again.
      return buckets.builder().build(user, () -> configuration).tryConsume(1) ? ALLOWED : REJECTED;
    }
  }

  /** One inspect decision of {@code store}, as the app asks it: an outcome label. */
  static String decideOn(ManagementQuotaStore store, String user, String receipt) {
    QuotaDecision d =
        store.consume(
            QuotaKey.user(PROJECT, user, QuotaOperation.INSPECT),
            new ReceiptId(receipt),
            RequestDigest.of(QuotaOperation.INSPECT, "benchmark"),
            LIMIT,
            WINDOW);
    if (d instanceof QuotaDecision.Allowed) {
      return ALLOWED;
    }
    if (d instanceof QuotaDecision.Rejected) {
      return REJECTED;
    }
    return d.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
  }

  /** Settings as the app builds them from its defaults, on the workload's database. */
  static PostgresSettings settings(FreshDatabase db) {
    return settings(db, 2, 2);
  }

  /**
   * The same with {@code managerPoolSize} connections of {@code ql3_package_manager} and {@code
   * runtimePoolSize} of {@code ql3_runtime}.
   */
  static PostgresSettings settings(FreshDatabase db, int managerPoolSize, int runtimePoolSize) {
    return new PostgresSettings(
        db.database().jdbcUrl(),
        new PostgresSettings.Login(db.database().username(), db.database().password()),
        Map.of(),
        true,
        true,
        managerPoolSize,
        1,
        runtimePoolSize,
        2,
        PostgresSettings.Timeouts.DEFAULTS);
  }

  /**
   * The project's code on {@code managerPoolSize} connections of {@code ql3_package_manager}: 2,
   * the app's default (the system's own name), or more ({@code <system>-pool-N}, full run only:
   * whether the pool bounds it).
   */
  abstract static class ManagerPoolWorkload extends PostgresWorkload {
    final int managerPoolSize;

    ManagerPoolWorkload(Shape shape, String system, int managerPoolSize) {
      super(shape, managerPoolSize == 2 ? system : system + "-pool-" + managerPoolSize);
      this.managerPoolSize = managerPoolSize;
    }

    @Override
    public boolean inQuickMode() {
      return managerPoolSize == 2;
    }
  }

  /**
   * The project's store in-process, wired exactly as the app wires it ({@link PostgresBackend} with
   * the default pool of 2 {@code ql3_package_manager} connections, or as many as client threads for
   * the comparison with the baselines), whatever the store code on this branch does.
   */
  static final class StorePostgres extends ManagerPoolWorkload {
    private OpenedStore backend;
    private ManagementQuotaStore store;

    StorePostgres(Shape shape, int poolSize) {
      super(shape, "store", poolSize);
    }

    @Override
    void openOn(FreshDatabase db) {
      backend =
          PostgresBackend.open(
              settings(db, managerPoolSize, 2), GOVERNANCE, DataSourceDecorator.NONE);
      store = backend.managementQuota().orElseThrow();
    }

    @Override
    String decide(String user, String receipt) {
      return decideOn(store, user, receipt);
    }

    @Override
    Map<String, Object> moreNotes() {
      return Map.of("poolSize", managerPoolSize);
    }

    @Override
    AutoCloseable opened() {
      return backend;
    }
  }

  /**
   * The HTTP API of a real app process on PostgreSQL (default pools, dev-token authentication): one
   * call = {@code POST …/proposals/{id}/inspections}, which authenticates, checks the Project
   * Policy, reads the proposal and its approval and consumes the user's inspect quota. 200 is
   * {@code allowed}, 429 {@code quota_exceeded} is {@code rejected}.
   */
  static final class HttpPostgres extends ManagerPoolWorkload implements Workload.OnApp {
    private BenchApp app;
    private Http http;
    private String inspections;

    /**
     * @param managerPoolSize {@code qinglong.postgres.manager-pool-size}
     */
    HttpPostgres(Shape shape, int managerPoolSize) {
      super(shape, "http", managerPoolSize);
    }

    @Override
    void openOn(FreshDatabase db) throws Exception {
      List<String> users = new ArrayList<>();
      for (int i = 0; i < (shape == Shape.HOT ? 1 : USERS); i++) {
        users.add("u" + i);
      }
      users.add(HOT_USER);
      db.migrateWithMembers(false, List.of(PROJECT), users, "package.manage", "package.read");
      app =
          startApp(
              db,
              users,
              managerPoolSize == 2
                  ? List.of()
                  : List.of("--qinglong.postgres.manager-pool-size=" + managerPoolSize));
      http = new Http(app);
      String proposal =
          http.expect(
                  "POST",
                  "u0",
                  "/v1/projects/" + PROJECT + "/plugin-packages/proposals",
                  "{\"actionRef\":\"bench\",\"action\":{\"type\":\"remove\",\"package\":\"p\","
                      + "\"version\":\"1\"}}",
                  201)
              .get("proposalId")
              .asString();
      inspections =
          "/v1/projects/" + PROJECT + "/plugin-packages/proposals/" + proposal + "/inspections";
    }

    @Override
    String decide(String user, String receipt) throws Exception {
      HttpResponse<String> r =
          http.send("POST", user, inspections, "{\"inspectionId\":\"" + receipt + "\"}");
      if (r.statusCode() == 200) {
        return ALLOWED;
      }
      if (r.statusCode() == 429 && r.body().contains("quota_exceeded")) {
        return REJECTED;
      }
      throw Http.unexpected("inspection", r);
    }

    @Override
    public Phases phases(Mode mode) {
      // A freshly started app needs a longer warm-up than in-process code (JIT); the hot bucket's
      // fill (600 requests to a cold app) eats into its 60 s window, so its phases are shorter.
      return shape == Shape.HOT
          ? Phases.timed(mode, 4, 3, 10, 25)
          : Phases.timed(mode, 4, 3, 15, 30);
    }

    @Override
    Map<String, Object> moreNotes() {
      return Map.of("managerPoolSize", managerPoolSize);
    }

    /** Its CPU and its log: on the exhausted hot bucket, what a flood of refusals costs. */
    @Override
    public BenchApp app() {
      return app;
    }

    @Override
    AutoCloseable opened() {
      return app;
    }
  }

  /** Starts the app on PostgreSQL with the default pools; extra {@code --name=value} args. */
  static BenchApp startApp(FreshDatabase db, List<String> users, List<String> extra)
      throws Exception {
    List<String> args = new ArrayList<>();
    args.add("--qinglong.store=postgres");
    args.add("--qinglong.postgres.url=" + db.database().jdbcUrl());
    args.add("--qinglong.postgres.username=" + db.database().username());
    args.add("--qinglong.postgres.password=" + db.database().password());
    args.add("--qinglong.postgres.bootstrap-roles=true");
    // 32 client threads come from one address: lift the per-address bound (default 16). The
    // per-user bound (default 8) is lifted to 16: 8 client threads on the one hot user keep 8
    // requests in flight, and a new one may arrive before the server has counted the last
    // answered one out (a 429 too_many_requests that is not the quota's).
    args.add("--qinglong.shield.max-concurrent-requests-per-client=64");
    args.add("--qinglong.shield.max-concurrent-requests-per-principal=16");
    args.addAll(extra);
    return BenchApp.start(users, args);
  }

  /**
   * A SQLite workload: its own database in a fresh temporary directory, deleted after the
   * workload's resources are closed (the scenario is the shape's, with {@code -sqlite}).
   */
  abstract static class SqliteWorkload extends QuotaWorkload {
    private Path dir;

    SqliteWorkload(Shape shape, String system) {
      super(shape, system);
    }

    @Override
    public String scenario() {
      return super.scenario() + "-sqlite";
    }

    @Override
    void open() throws Exception {
      dir = Files.createTempDirectory("qinglong-bench-sqlite");
      openIn(dir);
    }

    /** Opens the workload's database in {@code dir}. */
    abstract void openIn(Path dir) throws Exception;

    @Override
    public void close() throws Exception {
      // The directory may hold the process lock file (qinglong.db.lock) a backend takes, too.
      Workload.closeInOrder(opened(), () -> TempDirectories.delete(dir));
    }
  }

  /**
   * The same statement on SQLite (numbered parameters, JSON receipts), one pool of 1: the app's
   * ({@code raw-jdbc}: {@link SqliteDatabase#open}, which keeps prepared statements), or the same
   * pragmas on a Hikari pool over the bare driver, which compiles the statement on every call, as a
   * user's own JDBC code on sqlite-jdbc does ({@code raw-jdbc-driver-pool}).
   */
  static final class RawSqlite extends SqliteWorkload {
    private static final String NOW = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
    private static final String UPSERT =
        """
        INSERT INTO raw_quota_buckets AS b
          (project_id, subject_type, subject_id, operation,
           window_started_at_ms, consumed_count, receipt_ids, updated_at_ms)
        VALUES (?1, 'user', ?2, 'plugin-package.inspect', %1$s, 1, json_array(?3), %1$s)
        ON CONFLICT (project_id, subject_type, subject_id, operation) DO UPDATE SET
          window_started_at_ms = CASE WHEN b.window_started_at_ms + ?4 <= excluded.updated_at_ms
                                      THEN excluded.window_started_at_ms
                                      ELSE b.window_started_at_ms END,
          consumed_count = CASE WHEN b.window_started_at_ms + ?4 <= excluded.updated_at_ms
                                THEN 1 ELSE b.consumed_count + 1 END,
          receipt_ids = CASE WHEN b.window_started_at_ms + ?4 <= excluded.updated_at_ms
                             THEN excluded.receipt_ids
                             ELSE json_insert(b.receipt_ids, '$[#]', ?3) END,
          updated_at_ms = excluded.updated_at_ms
        WHERE b.window_started_at_ms + ?4 <= excluded.updated_at_ms
           OR (b.consumed_count < ?5
               AND NOT EXISTS (SELECT 1 FROM json_each(b.receipt_ids) e WHERE e.value = ?3))
        RETURNING consumed_count
        """
            .formatted(NOW);
    private final boolean appPool;
    private HikariDataSource pool;

    RawSqlite(Shape shape) {
      this(shape, true);
    }

    RawSqlite(Shape shape, boolean appPool) {
      super(shape, appPool ? "raw-jdbc" : "raw-jdbc-driver-pool");
      this.appPool = appPool;
    }

    @Override
    void openIn(Path dir) throws SQLException {
      Path file = dir.resolve("raw.db");
      pool = appPool ? SqliteDatabase.open(file) : driverPool(file);
      createRawTable(pool, "TEXT");
    }

    @Override
    AutoCloseable opened() {
      return pool;
    }

    /** The pragmas of {@link SqliteDatabase#open} on the driver's own connections. */
    private static HikariDataSource driverPool(Path file) {
      HikariConfig config = new HikariConfig();
      config.setPoolName("bench-sqlite-driver");
      config.setJdbcUrl("jdbc:sqlite:" + file.toAbsolutePath());
      config.setMaximumPoolSize(1);
      config.setMinimumIdle(1);
      config.setConnectionTimeout(30_000);
      config.addDataSourceProperty("journal_mode", "WAL");
      config.addDataSourceProperty("synchronous", "NORMAL");
      config.addDataSourceProperty("busy_timeout", "10000");
      config.addDataSourceProperty("foreign_keys", "true");
      config.addDataSourceProperty("transaction_mode", "IMMEDIATE");
      return new HikariDataSource(config);
    }

    @Override
    String decide(String user, String receipt) throws Exception {
      return rawUpsert(pool, UPSERT, user, receipt, true);
    }
  }

  /** The project's SQLite store in-process, wired as the app wires it ({@link SqliteBackend}). */
  static final class StoreSqlite extends SqliteWorkload {
    private OpenedStore backend;
    private ManagementQuotaStore store;

    StoreSqlite(Shape shape) {
      super(shape, "store");
    }

    @Override
    void openIn(Path dir) {
      backend =
          SqliteBackend.open(SqliteBackend.file(dir), false, GOVERNANCE, DataSourceDecorator.NONE);
      store = backend.managementQuota().orElseThrow();
    }

    @Override
    AutoCloseable opened() {
      return backend;
    }

    @Override
    String decide(String user, String receipt) {
      return decideOn(store, user, receipt);
    }
  }
}
