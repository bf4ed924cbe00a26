package dev.qinglong.app.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.testkit.AppProcess;
import dev.qinglong.testkit.QuotaWindows;
import dev.qinglong.testkit.TcpProxy;
import dev.qinglong.testkit.postgres.LocalPostgresCluster;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Database faults under load (docs/reliability.md#database-faults): one real app process (role
 * {@code all}, store postgres, dev tokens) reaches a PostgreSQL cluster that this test owns
 * (started from the local server binaries, so it can be restarted; no binaries = failure, never a
 * skip) through a {@link TcpProxy}. In each fault — database unreachable, answers slower than the
 * socket timeout, connections reset mid-statement, PostgreSQL restarted, the default small pool
 * exhausted — real threads send quota-gated proposals and inspections with fresh ids, and:
 *
 * <ul>
 *   <li>every answer is the correct one (201/200, or 429 {@code quota_exceeded} once the window is
 *       full) or 503 problem+json {@code unavailable} with {@code Retry-After}; nothing else;
 *   <li>every answer comes within the configured timeouts plus a generous margin;
 *   <li>readiness goes DOWN during the fault (where the fault is one the database probe can see)
 *       and UP after, without a restart of the app;
 *   <li>afterwards, replaying every id gives the same outcome and counts nothing twice, and in SQL:
 *       bucket count = receipts ≤ limit, every id ever answered 2xx has its receipt (no allow the
 *       database did not count), and the proposals equal the receipts equal the 2xx ids;
 *   <li>the app's live threads and its PostgreSQL sessions return to their baseline.
 * </ul>
 *
 * The figures of a run are printed (and written to {@code target/database-faults.txt}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DatabaseFaultsIT {
  static final Duration START = Duration.ofSeconds(120);
  static final JsonMapper JSON = JsonMapper.builder().build();
  // Propose and inspect, per (Project, user) and window: room left when the fault starts, full
  // soon after it (so the fault meets allows, and 429s come after it).
  static final int LIMIT = 60;
  static final String USER = "alice";
  static final long WINDOW_MS = 300_000;

  /** The Projects' model quota window ({@code "1h"}), aligned to the epoch. */
  static final long MODEL_WINDOW_MS = QuotaWindow.ONE_HOUR.millis();

  /** The longest a phase may take; it starts with at least this much of its model window left. */
  static final Duration PHASE_BUDGET = Duration.ofMinutes(3);

  /** Requests per second of the load, whatever its thread count. */
  static final int RATE = 60;

  // The app's bounds (short, so the suite is quick; the defaults are 3 s / 10 s / 5 s / 3 s).
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
  static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(2);
  static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);
  static final Duration LOCK_TIMEOUT = Duration.ofSeconds(1);
  static final long POOL_WAIT_MS = 3_000; // PostgresPools.POOL_WAIT_MILLIS

  /**
   * Longest acceptable answer while a fault lasts: a proposal borrows a connection twice (quota,
   * then the proposal), so two waits for a pool connection, one connection attempt and two network
   * waits, plus 6 s of margin for a loaded CI machine. A correctness bound (no request hangs on the
   * database), not a benchmark.
   */
  static final long LATENCY_BOUND_MS =
      2 * POOL_WAIT_MS + CONNECT_TIMEOUT.toMillis() + 2 * SOCKET_TIMEOUT.toMillis() + 6_000;

  static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @TempDir static Path dataDir;
  private final Path logDir = Path.of("target", "process-logs", "database-faults");

  private LocalPostgresCluster cluster;
  private String directUrl;
  private TcpProxy proxy;
  private AppProcess app;
  private String alice;
  private String admin;
  private final List<String> figures = new ArrayList<>();
  private final Totals totals = new Totals();
  private int healthySessions;

  @BeforeAll
  void start() throws Exception {
    // Owned even when QINGLONG_TEST_PG_URL is set: the restart fault needs a server of its own.
    cluster = LocalPostgresCluster.start();
    try (Connection c = DriverManager.getConnection(cluster.jdbcUrl("postgres"), superuser());
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE faults");
    }
    directUrl = cluster.jdbcUrl("faults");
    proxy = new TcpProxy("127.0.0.1", cluster.port());
    Map<String, String> p = new LinkedHashMap<>();
    p.put("qinglong.role", "all");
    p.put("qinglong.store", "postgres");
    p.put("qinglong.postgres.url", "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/faults");
    p.put("qinglong.postgres.username", LocalPostgresCluster.SUPERUSER);
    p.put("qinglong.postgres.password", "");
    p.put("qinglong.postgres.bootstrap-roles", "true");
    p.put("qinglong.postgres.connect-timeout", CONNECT_TIMEOUT.toMillis() + "ms");
    p.put("qinglong.postgres.socket-timeout", SOCKET_TIMEOUT.toMillis() + "ms");
    p.put("qinglong.postgres.statement-timeout", STATEMENT_TIMEOUT.toMillis() + "ms");
    p.put("qinglong.postgres.lock-timeout", LOCK_TIMEOUT.toMillis() + "ms");
    p.put("qinglong.data-dir", dataDir.toString());
    p.put("qinglong.management-quota.window", WINDOW_MS + "ms");
    p.put("qinglong.management-quota.limits.propose", Integer.toString(LIMIT));
    p.put("qinglong.management-quota.limits.inspect", Integer.toString(LIMIT));
    p.put("qinglong.ai.enabled", "true");
    // The load comes from one user at one address: the shield must not be what answers.
    p.put("qinglong.shield.max-concurrent-requests", "128");
    p.put("qinglong.shield.max-concurrent-requests-per-client", "128");
    p.put("qinglong.shield.max-concurrent-requests-per-principal", "128");
    app = AppProcess.start("app", logDir, p).awaitReady(START);
    Properties tokens = new Properties();
    try (Reader r = Files.newBufferedReader(dataDir.resolve("dev-tokens.properties"))) {
      tokens.load(r);
    }
    alice = tokens.getProperty("alice");
    admin = tokens.getProperty("admin");
  }

  @AfterAll
  void stop() throws Exception {
    try {
      figures.add(totals.toString());
      String text = String.join("\n", figures) + "\n";
      System.out.println("DatabaseFaultsIT figures:\n" + text);
      Files.createDirectories(Path.of("target"));
      Files.writeString(Path.of("target", "database-faults.txt"), text);
    } finally {
      if (app != null) {
        app.close();
      }
      if (proxy != null) {
        proxy.close();
      }
      if (cluster != null) {
        cluster.stop();
      }
    }
  }

  @Test
  @Order(1)
  void databaseUnreachable() throws Exception {
    runPhase(
        "unreachable",
        8,
        Duration.ofSeconds(5),
        true,
        () -> {
          proxy.cut();
          return 1;
        },
        () -> proxy.heal());
  }

  @Test
  @Order(2)
  void databaseSlowerThanTheSocketTimeout() throws Exception {
    runPhase(
        "slow",
        8,
        Duration.ofSeconds(6),
        true,
        () -> {
          proxy.setLatency(SOCKET_TIMEOUT.plusSeconds(1));
          return 1;
        },
        () -> proxy.setLatency(Duration.ZERO));
  }

  @Test
  @Order(3)
  void silentlyDroppedPackets() throws Exception {
    runPhase(
        "blackhole",
        8,
        Duration.ofSeconds(6),
        true,
        () -> {
          proxy.setBlackhole(true);
          return 1;
        },
        () -> proxy.setBlackhole(false));
  }

  @Test
  @Order(4)
  void connectionsResetMidStatement() throws Exception {
    AtomicBoolean resetting = new AtomicBoolean();
    AtomicInteger rounds = new AtomicInteger();
    Thread[] resetter = new Thread[1];
    runPhase(
        "reset",
        8,
        Duration.ofSeconds(5),
        false,
        () -> {
          // A little latency keeps statements in flight, so the resets land in the middle of them.
          proxy.setLatency(Duration.ofMillis(50));
          resetting.set(true);
          resetter[0] =
              new Thread(
                  () -> {
                    while (resetting.get()) {
                      proxy.resetAll();
                      rounds.incrementAndGet();
                      sleep(150);
                    }
                  },
                  "db-faults-resetter");
          resetter[0].start();
          return 0;
        },
        () -> {
          resetting.set(false);
          join(resetter[0]);
          proxy.setLatency(Duration.ZERO);
        });
    figures.add("  reset rounds: " + rounds.get());
  }

  @Test
  @Order(5)
  void postgresRestartedUnderLoad() throws Exception {
    runPhase(
        "restart",
        8,
        Duration.ofSeconds(5),
        true,
        () -> {
          cluster.stopServer();
          return 1;
        },
        () -> cluster.startServer());
  }

  @Test
  @Order(6)
  void poolExhausted() throws Exception {
    // The default pools (2 package-manager connections); each statement slowed below the socket
    // timeout, 32 concurrent requests: most wait for a connection longer than the pool's bound.
    runPhase(
        "pool-exhausted",
        32,
        Duration.ofSeconds(6),
        false,
        () -> {
          proxy.setLatency(Duration.ofMillis(150));
          return 1;
        },
        () -> proxy.setLatency(Duration.ZERO));
  }

  // ---------------------------------------------------------------------------------------------

  interface Fault {
    /**
     * Injects the fault; returns how many faults it counts as (resets are counted by the proxy).
     */
    int inject() throws Exception;
  }

  interface Heal {
    void heal() throws Exception;
  }

  /** One answer; {@code stage}: sent before, during or after the fault, or a replay. */
  record Answer(
      String op,
      String id,
      int status,
      String code,
      String retryAfter,
      long millis,
      String proposalId,
      String stage) {
    Answer at(String stage) {
      return new Answer(op, id, status, code, retryAfter, millis, proposalId, stage);
    }
  }

  /**
   * Runs one fault: load before, during and after it; then replays, checks answers, latencies,
   * readiness, SQL invariants and the return to baseline.
   */
  private void runPhase(
      String name,
      int threads,
      Duration faultFor,
      boolean readinessMustDrop,
      Fault fault,
      Heal heal)
      throws Exception {
    String project = "faults-" + name;
    ok(
        put(
            "/v1/projects/" + project + "/members/" + USER,
            admin,
            "{\"permissions\":[\"package.manage\",\"package.read\",\"model.invoke\"]}"));
    ok(
        put(
            "/v1/projects/" + project + "/model-policies/m1",
            admin,
            "{\"maxTotalTokens\":10,\"maxCostMicros\":null}"));
    ok(
        put(
            "/v1/projects/" + project + "/model-quota",
            admin,
            "{\"window\":\"1h\",\"maxInvocations\":"
                + LIMIT
                + ",\"maxTokens\":100000000,\"maxCostMicros\":null}"));
    // The model quota window is epoch-aligned, unlike the management quota's (it starts at a
    // bucket's first request): the phase starts with its whole budget left of the hour.
    QuotaWindows.awaitRoom(MODEL_WINDOW_MS, PHASE_BUDGET, this::dbNowMs);
    long phaseStartDbMs = dbNowMs();
    Load load = new Load(project, threads);
    // Seed proposal to inspect (one propose of the window).
    Answer seed = load.propose();
    assertThat(seed.status()).as(seed.toString()).isEqualTo(201);
    load.seedProposal = seed.proposalId();

    // Baseline with the same concurrency, then measure.
    load.start();
    sleep(1500);
    long baselineThreads = liveThreads();
    // The healthy steady state: the most sessions seen before any fault of the suite.
    for (int i = 0; i < 3; i++) {
      healthySessions = Math.max(healthySessions, appSessions());
      sleep(200);
    }
    int baselineSessions = healthySessions;

    long resetsBefore = proxy.resets();
    ReadinessWatch watch = new ReadinessWatch();
    watch.start();
    int injected = fault.inject();
    load.stage = "fault";
    load.duringFault.set(true);
    sleep(faultFor.toMillis());
    if (readinessMustDrop) {
      // The fault lasts until readiness has said so (its probe runs every 2 s with a 4 s bound),
      // however long a busy machine takes to get there.
      await("readiness DOWN during " + name)
          .atMost(Duration.ofSeconds(30))
          .until(watch.sawDown::get);
    }
    boolean sawDown = watch.sawDown.get();
    load.duringFault.set(false);
    load.stage = "healing";
    heal.heal();
    long healedAt = System.nanoTime();
    app.awaitReady(Duration.ofSeconds(30));
    long readyAfterMs = (System.nanoTime() - healedAt) / 1_000_000;
    // The process's own dedicated database session comes back too: the download barrier.
    awaitReadinessDetail("\"standaloneBarrier\":\"held\"", Duration.ofSeconds(30));
    load.stage = "after";
    // Load after recovery until all three quotas are full (429), at most 20 s.
    long fillDeadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    do {
      sleep(500);
    } while (!(load.saw("propose", 429, "after")
            && load.saw("inspect", 429, "after")
            && load.saw("admit", 429, "after"))
        && System.nanoTime() < fillDeadline);
    load.stop();
    watch.stop();
    injected += (int) (proxy.resets() - resetsBefore);

    // Every answer was correct or 503 unavailable with Retry-After, within the bound.
    List<Answer> answers = new ArrayList<>(load.answers);
    List<String> wrong = new ArrayList<>();
    for (Answer a : answers) {
      if (!acceptable(a)) {
        wrong.add(a.toString());
      }
    }
    assertThat(wrong).as("answers neither correct nor 503 unavailable + Retry-After").isEmpty();
    long maxMillis = answers.stream().mapToLong(Answer::millis).max().orElse(0);
    long maxFaultMillis = load.maxFaultMillis.get();
    assertThat(maxMillis)
        .as("slowest answer (ms) of " + name)
        .isLessThanOrEqualTo(LATENCY_BOUND_MS);
    long unavailable = answers.stream().filter(a -> a.status() == 503).count();
    if (readinessMustDrop) {
      assertThat(sawDown).as("readiness DOWN during " + name).isTrue();
      assertThat(unavailable).as("503s during " + name).isPositive();
    }

    // Replay every id after the fault: same outcome, nothing counted twice.
    Map<String, Answer> first = new LinkedHashMap<>();
    Map<String, Answer> lastNon503 = new HashMap<>();
    for (Answer a : answers) {
      String key = a.op() + ":" + a.id();
      first.putIfAbsent(key, a);
      if (a.status() != 503) {
        lastNon503.put(key, a);
      }
    }
    AtomicInteger replays = new AtomicInteger();
    List<String> replayMismatch = Collections.synchronizedList(new ArrayList<>());
    Map<String, Set<String>> ok = new HashMap<>();
    for (String op : List.of("propose", "inspect", "step", "admit")) {
      ok.put(op, ConcurrentHashMap.newKeySet());
    }
    Set<String> okPropose = ok.get("propose");
    Set<String> okInspect = ok.get("inspect");
    Set<String> okAdmit = ok.get("admit");
    Set<String> everOk = new HashSet<>();
    for (Answer a : answers) {
      if (a.status() / 100 == 2) {
        ok.get(a.op()).add(a.id());
        everOk.add(a.op() + ":" + a.id());
      }
    }
    // Replayed: every id that met the fault (a 503, or sent while it lasted or healed) and every
    // 4th of the others; 4 threads (the windows are full by now, so the order does not matter).
    Set<String> metFault = new HashSet<>();
    for (Answer a : answers) {
      if (a.status() == 503 || !a.stage().equals("before") && !a.stage().equals("after")) {
        metFault.add(a.op() + ":" + a.id());
      }
    }
    ExecutorService replayers = Executors.newFixedThreadPool(4);
    List<Future<?>> replaying = new ArrayList<>();
    int index = 0;
    for (Map.Entry<String, Answer> e : first.entrySet()) {
      if (!metFault.contains(e.getKey()) && index++ % 4 != 0) {
        continue;
      }
      replaying.add(
          replayers.submit(
              () -> {
                replayOne(e.getKey(), e.getValue(), lastNon503, everOk, ok, load, replayMismatch);
                replays.incrementAndGet();
                return null;
              }));
    }
    for (Future<?> f : replaying) {
      f.get(5, TimeUnit.MINUTES);
    }
    replayers.shutdown();
    assertThat(Math.floorDiv(dbNowMs(), MODEL_WINDOW_MS))
        .as("the phase fits one model quota window (it took longer than %s)", PHASE_BUDGET)
        .isEqualTo(Math.floorDiv(phaseStartDbMs, MODEL_WINDOW_MS));
    assertThat(replayMismatch).as("replays after " + name).isEmpty();
    okPropose.add(load.seedActionRef);
    runChecks(
        name,
        project,
        phaseStartDbMs,
        load,
        answers,
        ok,
        sawDown,
        readyAfterMs,
        threads,
        maxMillis,
        maxFaultMillis,
        unavailable,
        baselineThreads,
        baselineSessions,
        injected,
        replays.get());
  }

  /** Replays one id and checks it gives the same outcome. */
  private void replayOne(
      String key,
      Answer firstAnswer,
      Map<String, Answer> lastNon503,
      Set<String> everOk,
      Map<String, Set<String>> ok,
      Load load,
      List<String> replayMismatch)
      throws Exception {
    Answer before = lastNon503.getOrDefault(key, firstAnswer);
    Answer again = load.replay(before);
    if (again.status() == 503) {
      replayMismatch.add("503 after recovery: " + again);
      return;
    }
    if (again.status() / 100 == 2) {
      ok.get(again.op()).add(again.id());
    }
    boolean wasOk = everOk.contains(key);
    if (wasOk && again.status() != 200) {
      replayMismatch.add("was 2xx, replay " + again);
    }
    if (before.status() == 429 && again.status() != 429) {
      replayMismatch.add("was 429, replay " + again);
    }
    if (wasOk
        && before.proposalId() != null
        && again.proposalId() != null
        && !before.proposalId().equals(again.proposalId())) {
      replayMismatch.add("replay names another proposal: " + before + " / " + again);
    }
    if (!acceptable(again)) {
      replayMismatch.add("replay answer not acceptable: " + again);
    }
  }

  /** The SQL invariants and the return to baseline after a phase; records its figures. */
  private void runChecks(
      String name,
      String project,
      long phaseStartDbMs,
      Load load,
      List<Answer> answers,
      Map<String, Set<String>> ok,
      boolean sawDown,
      long readyAfterMs,
      int threads,
      long maxMillis,
      long maxFaultMillis,
      long unavailable,
      long baselineThreads,
      int baselineSessions,
      int injected,
      int replays)
      throws Exception {
    Set<String> okPropose = ok.get("propose");
    Set<String> okInspect = ok.get("inspect");
    Set<String> okAdmit = ok.get("admit");

    // SQL: counts = receipts ≤ limit; every 2xx counted; proposals = receipts = 2xx ids.
    Bucket propose = bucket(project, "plugin-package.propose");
    Bucket inspect = bucket(project, "plugin-package.inspect");
    Set<String> proposals = proposalRefs(project);
    List<String> violations = new ArrayList<>();
    for (Bucket b : List.of(propose, inspect)) {
      if (b.count() != b.receipts().size() || b.count() > LIMIT) {
        violations.add("bucket " + b);
      }
    }
    // A 429 means the window is full: the count is then exactly the limit (reached, not passed).
    for (Bucket b : List.of(propose, inspect)) {
      String op = b.operation().substring(b.operation().lastIndexOf('.') + 1);
      boolean refusedAny = answers.stream().anyMatch(a -> a.op().equals(op) && a.status() == 429);
      if (refusedAny && b.count() != LIMIT) {
        violations.add("429 for " + op + " with count " + b.count() + " below the limit");
      }
    }
    // Model admission: reservations = 2xx admissions, at most the limit per window; a 429 means
    // the window is full.
    Map<Long, Set<String>> reservations = reservations(project);
    Set<String> reserved = new HashSet<>();
    reservations.values().forEach(reserved::addAll);
    if (!reserved.equals(okAdmit)) {
      violations.add("reservations != 2xx admissions: " + diff(reserved, okAdmit));
    }
    okAdmit.stream()
        .filter(id -> !reserved.contains(id))
        .forEach(id -> violations.add("uncounted " + id));
    reservations.forEach(
        (window, ids) -> {
          if (ids.size() > LIMIT) {
            violations.add("window " + window + " holds " + ids.size() + " reservations");
          }
        });
    boolean admitRefused =
        answers.stream().anyMatch(a -> a.op().equals("admit") && a.status() == 429);
    if (admitRefused && reservations.values().stream().noneMatch(ids -> ids.size() == LIMIT)) {
      violations.add("429 for admit with no full window");
    }
    if (!proposals.equals(okPropose)) {
      violations.add("proposals " + proposals.size() + " != 2xx proposes " + okPropose.size());
    }
    // Windows start at a bucket's first request; this phase's buckets are new, so one window holds
    // the whole phase unless it lasted longer than the window.
    long nowDbMs = dbNowMs();
    boolean oneWindow =
        propose.windowStartMs() >= phaseStartDbMs
            && inspect.windowStartMs() >= phaseStartDbMs
            && nowDbMs < Math.min(propose.windowStartMs(), inspect.windowStartMs()) + WINDOW_MS;
    Set<String> uncounted = new HashSet<>();
    if (oneWindow) {
      if (!propose.receipts().equals(okPropose)) {
        violations.add("propose receipts != 2xx ids: " + diff(propose.receipts(), okPropose));
      }
      if (!inspect.receipts().equals(okInspect)) {
        violations.add("inspect receipts != 2xx ids: " + diff(inspect.receipts(), okInspect));
      }
      okPropose.stream().filter(id -> !propose.receipts().contains(id)).forEach(uncounted::add);
      okInspect.stream().filter(id -> !inspect.receipts().contains(id)).forEach(uncounted::add);
    } else {
      // The phase straddled a window boundary: the buckets hold only the new window's receipts.
      if (!okPropose.containsAll(propose.receipts())
          || !okInspect.containsAll(inspect.receipts())) {
        violations.add("receipts without a 2xx id");
      }
    }
    assertThat(uncounted).as("2xx answers the database did not count").isEmpty();
    assertThat(violations).as("invariants after " + name).isEmpty();
    assertThat(oneWindow).as("the phase fits one quota window, so the exact checks ran").isTrue();

    // Back to baseline: threads and PostgreSQL sessions (no leak from the fault). Tomcat keeps an
    // idle worker per request that was in flight at once for 60 s, and during the fault all the
    // client threads were in flight at once: so up to that many more threads, plus 10 of slack
    // (pool housekeeping, driver timers). A thread leaked per failed request would exceed it.
    long threadCeiling = baselineThreads + threads + 10;
    long threadsAfter = awaitAtMost(this::liveThreads, threadCeiling, Duration.ofSeconds(40));
    long sessionsAfter =
        awaitAtMost(() -> (long) appSessions(), baselineSessions, Duration.ofSeconds(40));
    assertThat(threadsAfter).as("live threads after " + name).isLessThanOrEqualTo(threadCeiling);
    assertThat(sessionsAfter)
        .as("app sessions after " + name)
        .isLessThanOrEqualTo(baselineSessions);
    assertThat(app.process.isAlive()).as("the app was not restarted").isTrue();

    long allowed = answers.stream().filter(a -> a.status() / 100 == 2).count();
    long faultAllowed =
        answers.stream().filter(a -> a.status() / 100 == 2 && a.stage().equals("fault")).count();
    long faultUnavailable =
        answers.stream().filter(a -> a.status() == 503 && a.stage().equals("fault")).count();
    long faultRequests = answers.stream().filter(a -> a.stage().equals("fault")).count();
    long refused = answers.stream().filter(a -> a.status() == 429).count();
    totals.add(answers.size(), replays, injected, unavailable, allowed, refused, violations.size());
    figures.add(
        String.format(
            "%-15s threads=%d requests=%d (2xx=%d 429=%d 503=%d) during_fault=%d (2xx=%d 503=%d)"
                + " replays=%d faults=%d"
                + " max_ms=%d max_fault_ms=%d bound_ms=%d readiness_down=%s ready_after_ms=%d"
                + " proposals=%d propose_count=%d inspect_count=%d one_window=%s"
                + " threads=%d->%d sessions=%d->%d violations=%d",
            name,
            threads,
            answers.size(),
            allowed,
            refused,
            unavailable,
            faultRequests,
            faultAllowed,
            faultUnavailable,
            replays,
            injected,
            maxMillis,
            maxFaultMillis,
            LATENCY_BOUND_MS,
            sawDown,
            readyAfterMs,
            proposals.size(),
            propose.count(),
            inspect.count(),
            oneWindow,
            baselineThreads,
            threadsAfter,
            baselineSessions,
            sessionsAfter,
            violations.size()));
  }

  private static boolean acceptable(Answer a) {
    return switch (a.status()) {
      case 200 -> true;
      case 201 -> !a.op().equals("inspect");
      case 429 ->
          a.op().equals("admit")
              ? "model_project_quota_exceeded".equals(a.code()) && a.retryAfter() != null
              : !a.op().equals("step")
                  && "quota_exceeded".equals(a.code())
                  && a.retryAfter() != null;
      case 503 -> "unavailable".equals(a.code()) && isSmallPositive(a.retryAfter());
      default -> false;
    };
  }

  private static boolean isSmallPositive(String retryAfter) {
    try {
      long s = Long.parseLong(retryAfter);
      return s >= 1 && s <= 60;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String diff(Set<String> a, Set<String> b) {
    Set<String> onlyA = new HashSet<>(a);
    onlyA.removeAll(b);
    Set<String> onlyB = new HashSet<>(b);
    onlyB.removeAll(a);
    return "only in receipts " + onlyA + ", only in answers " + onlyB;
  }

  /** Threads sending proposals and inspections with fresh ids until stopped. */
  private final class Load {
    final String project;
    final int threads;
    final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    final AtomicBoolean running = new AtomicBoolean();
    final AtomicBoolean duringFault = new AtomicBoolean();
    final AtomicLong maxFaultMillis = new AtomicLong();
    final AtomicInteger ids = new AtomicInteger();
    final List<Thread> workers = new ArrayList<>();
    final Map<String, String> actionOf = new ConcurrentHashMap<>();

    /** Each thread pauses so that all of them together send about {@link #RATE} requests/s. */
    final long pauseMs;

    volatile String stage = "before";
    volatile String seedProposal;
    volatile String seedActionRef;

    Load(String project, int threads) {
      this.project = project;
      this.threads = threads;
      this.pauseMs = Math.max(100, threads * 1000L / RATE);
    }

    /** Whether an answer of {@code op} with {@code status} came in stage {@code at}. */
    boolean saw(String op, int status, String at) {
      return answers.stream()
          .anyMatch(a -> a.op().equals(op) && a.status() == status && a.stage().equals(at));
    }

    void start() {
      running.set(true);
      for (int t = 0; t < threads; t++) {
        int n = t;
        Thread w =
            new Thread(
                () -> {
                  int i = 0;
                  while (running.get()) {
                    String at = stage;
                    try {
                      for (Answer a : next((n + i++) % 3)) {
                        answers.add(a.at(at));
                        if (duringFault.get()) {
                          maxFaultMillis.accumulateAndGet(a.millis(), Math::max);
                        }
                      }
                    } catch (Exception e) {
                      answers.add(new Answer("error", e.toString(), -1, null, null, 0, null, at));
                    }
                    DatabaseFaultsIT.sleep(pauseMs);
                  }
                },
                "db-faults-load-" + t);
        workers.add(w);
        w.start();
      }
    }

    void stop() {
      running.set(false);
      workers.forEach(DatabaseFaultsIT::join);
    }

    Answer propose() throws Exception {
      String ref = "r" + ids.incrementAndGet();
      if (seedActionRef == null) {
        seedActionRef = ref;
      }
      return send("propose", ref);
    }

    /** The next request(s) of kind {@code k}: propose, inspect, or a StepRun and its admission. */
    List<Answer> next(int k) throws Exception {
      if (k == 0) {
        return List.of(propose());
      }
      if (k == 1) {
        return List.of(inspect());
      }
      String id = "v" + ids.incrementAndGet();
      Answer step = send("step", id);
      if (step.status() / 100 != 2) {
        return List.of(step);
      }
      return List.of(step, send("admit", id));
    }

    Answer inspect() throws Exception {
      return send("inspect", "i" + ids.incrementAndGet());
    }

    /** Replays {@code a}; an admission replays its StepRun first (which must answer 200). */
    Answer replay(Answer a) throws Exception {
      if (a.op().equals("admit")) {
        Answer step = send("step", a.id());
        if (step.status() != 200) {
          return step;
        }
      }
      return send(a.op(), a.id());
    }

    private Answer send(String op, String id) throws Exception {
      String path;
      String body;
      if (op.equals("step")) {
        path = "/v1/projects/" + project + "/step-runs";
        body = "{\"stepRunId\":\"s-" + id + "\",\"runId\":\"run\",\"modelId\":\"m1\"}";
      } else if (op.equals("admit")) {
        path = "/v1/projects/" + project + "/model-invocations";
        body = "{\"invocationId\":\"" + id + "\",\"stepRunId\":\"s-" + id + "\"}";
      } else if (op.equals("propose")) {
        path = "/v1/projects/" + project + "/plugin-packages/proposals";
        body =
            "{\"actionRef\":\""
                + id
                + "\",\"action\":{\"type\":\"remove\",\"package\":\"p-"
                + id
                + "\",\"version\":\"1\"}}";
      } else {
        path =
            "/v1/projects/"
                + project
                + "/plugin-packages/proposals/"
                + seedProposal
                + "/inspections";
        body = "{\"inspectionId\":\"" + id + "\"}";
      }
      long t0 = System.nanoTime();
      HttpResponse<String> r =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port + path))
                  .timeout(Duration.ofSeconds(60))
                  .header("Authorization", "Bearer " + alice)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      String code = null;
      String proposalId = null;
      String type = r.headers().firstValue("Content-Type").orElse("");
      if (r.statusCode() >= 400) {
        if (type.startsWith("application/problem+json")) {
          JsonNode error = JSON.readTree(r.body()).path("error");
          code = error.path("code").asString(null);
        }
      } else if (op.equals("propose")) {
        proposalId = JSON.readTree(r.body()).path("proposalId").asString(null);
      }
      return new Answer(
          op,
          id,
          r.statusCode(),
          code,
          r.headers().firstValue("Retry-After").orElse(null),
          ms,
          proposalId,
          "replay");
    }
  }

  /** Polls readiness on the management port; records whether it was ever DOWN. */
  private final class ReadinessWatch {
    final AtomicBoolean sawDown = new AtomicBoolean();
    final AtomicBoolean running = new AtomicBoolean(true);
    Thread thread;

    void start() {
      thread =
          new Thread(
              () -> {
                while (running.get()) {
                  if (app.status("/actuator/health/readiness") != 200) {
                    sawDown.set(true);
                  }
                  DatabaseFaultsIT.sleep(100);
                }
              },
              "db-faults-readiness");
      thread.start();
    }

    void stop() {
      running.set(false);
      join(thread);
    }
  }

  private static final class Totals {
    long requests;
    long replays;
    long faults;
    long unavailable;
    long allowed;
    long refused;
    long violations;
    int phases;

    synchronized void add(
        long requests,
        long replays,
        long faults,
        long unavailable,
        long allowed,
        long refused,
        long violations) {
      this.requests += requests;
      this.replays += replays;
      this.faults += faults;
      this.unavailable += unavailable;
      this.allowed += allowed;
      this.refused += refused;
      this.violations += violations;
      phases++;
    }

    @Override
    public synchronized String toString() {
      return String.format(
          "TOTAL phases=%d requests=%d (2xx=%d 429=%d 503=%d) replays=%d faults=%d violations=%d",
          phases, requests, allowed, refused, unavailable, replays, faults, violations);
    }
  }

  // --- SQL, straight to the cluster (not through the proxy) ------------------------------------

  record Bucket(String operation, long windowStartMs, int count, Set<String> receipts) {}

  private static Properties superuser() {
    Properties p = new Properties();
    p.setProperty("user", LocalPostgresCluster.SUPERUSER);
    p.setProperty("connectTimeout", "5");
    p.setProperty("socketTimeout", "30");
    return p;
  }

  private Connection direct() throws SQLException {
    return DriverManager.getConnection(directUrl, superuser());
  }

  private long dbNowMs() throws SQLException {
    try (Connection c = direct();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private Bucket bucket(String project, String operation) throws Exception {
    try (Connection c = direct();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT window_started_at_ms, consumed_count, receipt_ids::text"
                    + " FROM qinglong.plugin_package_management_quota_buckets"
                    + " WHERE project_id = ? AND subject_type = 'user' AND subject_id = ?"
                    + " AND operation = ?")) {
      ps.setString(1, project);
      ps.setString(2, USER);
      ps.setString(3, operation);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Bucket(operation, 0, 0, Set.of());
        }
        Set<String> receipts = new HashSet<>();
        for (JsonNode r : JSON.readTree(rs.getString(3))) {
          receipts.add(r.isString() ? r.asString() : r.path("id").asString());
        }
        return new Bucket(operation, rs.getLong(1), rs.getInt(2), receipts);
      }
    }
  }

  /** Reservation ids of the project by window start. */
  private Map<Long, Set<String>> reservations(String project) throws SQLException {
    Map<Long, Set<String>> out = new HashMap<>();
    try (Connection c = direct();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT window_start_ms, invocation_id FROM qinglong.model_invocation_reservations"
                    + " WHERE project_id = ?")) {
      ps.setString(1, project);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.computeIfAbsent(rs.getLong(1), k -> new HashSet<>()).add(rs.getString(2));
        }
      }
    }
    return out;
  }

  private Set<String> proposalRefs(String project) throws SQLException {
    Set<String> refs = new HashSet<>();
    try (Connection c = direct();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT action_ref FROM qinglong.plugin_package_proposals WHERE project_id = ?")) {
      ps.setString(1, project);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          refs.add(rs.getString(1));
        }
      }
    }
    return refs;
  }

  /** The app's PostgreSQL sessions (its logins are the ql3_* roles; the owner pool is closed). */
  private int appSessions() {
    try (Connection c = direct();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = 'faults'"
                    + " AND usename LIKE 'ql3\\_%'")) {
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  // --- the app's own figures -------------------------------------------------------------------

  private static final Pattern LIVE_THREADS =
      Pattern.compile("(?m)^jvm_threads_live_threads(?:\\{[^}]*})? ([0-9.eE+]+)$");

  private long liveThreads() {
    try {
      Matcher m = LIVE_THREADS.matcher(app.body("/actuator/prometheus"));
      if (!m.find()) {
        throw new IllegalStateException("no jvm_threads_live_threads in /actuator/prometheus");
      }
      return (long) Double.parseDouble(m.group(1));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Waits until the readiness details contain {@code text}; fails with them otherwise. */
  private void awaitReadinessDetail(String text, Duration timeout) throws Exception {
    await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () ->
                assertThat(app.body("/actuator/health/readiness"))
                    .as("readiness details")
                    .contains(text));
  }

  private HttpResponse<String> put(String path, String token, String body) throws Exception {
    return CLIENT.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void ok(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isBetween(200, 201);
  }

  interface LongSupplier {
    long get() throws Exception;
  }

  /** Polls until the value is at most {@code ceiling} or time runs out; returns the last value. */
  private static long awaitAtMost(LongSupplier value, long ceiling, Duration timeout)
      throws Exception {
    AtomicLong last = new AtomicLong();
    try {
      await()
          .atMost(timeout)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> last.updateAndGet(x -> get(value)) <= ceiling);
    } catch (ConditionTimeoutException e) {
      // The caller asserts on the last value.
    }
    return last.get();
  }

  private static long get(LongSupplier value) {
    try {
      return value.get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static void join(Thread t) {
    try {
      t.join(120_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
