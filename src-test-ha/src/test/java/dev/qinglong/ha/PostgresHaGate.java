package dev.qinglong.ha;

import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.Inspection;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.ProposeResult;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.modelquota.AdmissionOutcome;
import dev.qinglong.core.modelquota.AdmissionRequest;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.quota.ManagementQuotaPolicy;
import dev.qinglong.core.quota.QuotaExceededException;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.postgres.PostgresLogins;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.testkit.QuotaWindows;
import dev.qinglong.testkit.TempDirectories;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL physical-HA gate (docs/testing.md#the-postgresql-ha-gate): a primary and a
 * synchronous ({@code remote_apply}) physical standby started from the local server binaries, two
 * independent app instances against the primary through their own {@link
 * dev.qinglong.testkit.TcpProxy}, then fence, promote, {@code pg_rewind} and rejoin. Every gate is
 * a check against the databases themselves; {@link #run()} always cleans up and then proves that
 * nothing is left behind.
 */
final class PostgresHaGate {
  static final String CONCURRENT = "concurrent-inspections-exact";
  static final String REPLAY = "replay-no-consume";
  static final String RESPONSE_LOSS = "response-loss-replay";
  static final String WINDOW_RESET = "window-reset-db-clock";
  static final String REMOTE_APPLY = "remote-apply";
  static final String FENCE = "fence-before-promote";
  static final String PROMOTION = "promotion-timeline";
  static final String STATE = "state-survives-promotion";
  static final String REWIND = "rewind-rejoin";
  static final String MODEL_RACE = "model-reservation-race";
  static final String NO_RESIDUE = "no-residue";
  static final List<String> GATES =
      List.of(
          CONCURRENT,
          REPLAY,
          RESPONSE_LOSS,
          WINDOW_RESET,
          REMOTE_APPLY,
          FENCE,
          PROMOTION,
          STATE,
          REWIND,
          MODEL_RACE,
          NO_RESIDUE);

  private static final Logger log = LoggerFactory.getLogger(PostgresHaGate.class);
  private static final String PROJECT = "ha-gate";
  private static final int INSPECT_LIMIT = 8;
  private static final Duration WINDOW = Duration.ofSeconds(60);
  private static final int MODEL_ROUNDS = 5;
  private static final int MODEL_RACERS = 4;
  private static final List<String> APP_TABLES =
      List.of(
          "project_members",
          "plugin_package_proposals",
          "plugin_package_approvals",
          "plugin_package_management_quota_buckets");

  private static final Principal ADMIN = new Principal("admin");
  private static final Principal ALICE = new Principal("alice"); // proposes
  private static final Principal BOB = new Principal("bob"); // decides
  private static final Principal IVAN = new Principal("ivan"); // inspects (concurrency)
  private static final Principal LENA = new Principal("lena"); // inspects (response loss)

  private final GateReport report = new GateReport(GATES);
  private final String tag =
      "qlha_"
          + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 41), 36)
              .toLowerCase(Locale.ROOT);
  private final Thread shutdownHook = new Thread(this::cleanup, "ha-gate-cleanup");

  /** What the apps were told succeeded; all of it must survive failover. */
  private final Map<String, String> ackedProposals = new LinkedHashMap<>(); // id → actionDigest

  private final Map<String, String> ackedDecisions = new LinkedHashMap<>(); // approvalId → id
  private final Map<String, Set<String>> ackedReceipts = new LinkedHashMap<>(); // bucket → ids

  private Path baseDir;
  private Shell shell;
  private PgNode nodeA; // first primary; after failover the rewound standby
  private PgNode nodeB; // first standby; after failover the primary
  private AppInstance app1;
  private AppInstance app2;
  private final List<Long> pids = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private volatile boolean cleanedUp;
  private String proposalId;
  private String approvalId;
  private String actionDigest;

  // Carried from the fence to the checks after promotion.
  private long fencedAtNanos;
  private long promotedAtNanos;
  private Map<String, String> tablesAtFence;
  private List<String> historyAtFence;
  private List<String> grantsAtFence;
  private final List<String> fenceProblems = new ArrayList<>();
  private String fenceDetail = "";

  // The model reservation race before failover, judged together with the one after.
  private String modelRaceBefore;
  private String modelRaceBeforeFailure;

  GateReport run() {
    try {
      Runtime.getRuntime().addShutdownHook(shutdownHook);
      try {
        setUp();
      } catch (Exception | AssertionError e) {
        log.error("HA gate setup failed", e);
        for (String name : GATES) {
          if (!name.equals(NO_RESIDUE)) {
            report.fail(name, "setup failed: " + describe(e) + nodeLogs());
          }
        }
        return report;
      }
      gate(CONCURRENT, this::concurrentInspections);
      gate(REPLAY, this::replayDoesNotConsume);
      gate(RESPONSE_LOSS, this::responseLossReplay);
      gate(WINDOW_RESET, this::windowResetOnDatabaseClock);
      gate(REMOTE_APPLY, this::remoteApply);
      modelRaceBeforeFailover();
      failover();
      gate(REWIND, this::rewindAndRejoin);
      gate(MODEL_RACE, this::modelRaceAfterFailover);
    } finally {
      cleanup();
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // Already shutting down.
      }
      gate(NO_RESIDUE, this::noResidue);
      report.finish();
    }
    return report;
  }

  private interface Check {
    String run() throws Exception;
  }

  private void gate(String name, Check check) {
    long started = System.nanoTime();
    try {
      String detail = check.run();
      report.pass(name, detail + " (" + millisSince(started) + " ms)");
      log.info("gate {} passed: {}", name, detail);
    } catch (Exception | AssertionError e) {
      log.error("gate {} failed", name, e);
      report.fail(name, describe(e) + " (" + millisSince(started) + " ms)");
    }
  }

  // ---------------------------------------------------------------- setup

  private void setUp() throws Exception {
    baseDir = Files.createTempDirectory("qinglong-ha-");
    Files.setPosixFilePermissions(baseDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    shell = new Shell(baseDir);
    if (shell.asRoot()) {
      shell.check(List.of("true")); // runuser works
      shell.run(List.of("chown", Shell.SERVER_USER, baseDir.toString()), false);
    }
    PgBinaries bin = PgBinaries.locate();
    nodeA = new PgNode(tag + "_a", bin, shell, baseDir);
    nodeB = new PgNode(tag + "_b", bin, shell, baseDir);
    ports.add(nodeA.port());
    ports.add(nodeB.port());
    log.info("HA gate {} in {} with {} (A={}, B={})", tag, baseDir, bin.dir(), nodeA, nodeB);

    nodeA.initPrimary();
    nodeA.start();
    nodeA.postmasterPid().ifPresent(pids::add);
    try (Connection c = nodeA.connect("postgres");
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + PgNode.DATABASE);
    }
    nodeB.initStandbyOf(nodeA);
    nodeB.start();
    nodeB.postmasterPid().ifPresent(pids::add);
    makeSynchronous(nodeA, nodeB);

    PGSimpleDataSource owner = new PGSimpleDataSource();
    owner.setUrl(nodeA.jdbcUrl(PgNode.DATABASE));
    owner.setUser(PgNode.SUPERUSER);
    PostgresLogins.bootstrap(owner);
    PostgresMigrations.migrate(owner);
    // The optional model-invocation quota: its own migrations, as the schema owner.
    PostgresMigrations.migrateAi(owner);

    ManagementQuotaPolicy quota =
        new ManagementQuotaPolicy(true, WINDOW, Map.of(QuotaOperation.INSPECT, INSPECT_LIMIT));
    app1 = new AppInstance("app1", nodeA.port(), quota);
    app2 = new AppInstance("app2", nodeA.port(), quota);
    ports.add(app1.proxy.port());
    ports.add(app2.proxy.port());

    app1.policy.replaceMember(
        ADMIN,
        new ProjectMember(
            PROJECT,
            ALICE.userId(),
            EnumSet.of(Permission.PACKAGE_MANAGE, Permission.PACKAGE_READ)));
    app1.policy.replaceMember(
        ADMIN,
        new ProjectMember(
            PROJECT,
            BOB.userId(),
            EnumSet.of(Permission.APPROVAL_DECIDE, Permission.PACKAGE_READ)));
    app2.policy.replaceMember(
        ADMIN, new ProjectMember(PROJECT, IVAN.userId(), EnumSet.of(Permission.PACKAGE_MANAGE)));
    app2.policy.replaceMember(
        ADMIN, new ProjectMember(PROJECT, LENA.userId(), EnumSet.of(Permission.APPROVAL_DECIDE)));

    // Both instances warm their pools first, so the race below starts on equal terms.
    propose(app2, "ha-warm-up");
    ProposeResult proposed = propose(app1, "ha-ref-0");
    proposalId = proposed.proposal().proposalId();
    approvalId = proposed.proposal().approvalId();
    actionDigest = proposed.proposal().actionDigest().value();
  }

  /** Names {@code standby} in the primary's synchronous_standby_names and waits for "sync". */
  private static void makeSynchronous(PgNode primary, PgNode standby) throws Exception {
    await(
        "standby " + standby + " streaming from " + primary,
        Duration.ofSeconds(60),
        () -> "streaming".equals(replicationState(primary, standby.name())[0]));
    try (Connection c = primary.connect("postgres");
        Statement st = c.createStatement()) {
      st.execute("ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (" + standby.name() + ")'");
      st.execute("SELECT pg_reload_conf()");
    }
    await(
        standby + " synchronous",
        Duration.ofSeconds(30),
        () -> "sync".equals(replicationState(primary, standby.name())[1]));
  }

  /** [state, sync_state] of {@code applicationName} in the primary's pg_stat_replication. */
  private static String[] replicationState(PgNode primary, String applicationName) {
    try (Connection c = primary.connect("postgres");
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT state, sync_state FROM pg_stat_replication WHERE application_name = ?")) {
      ps.setString(1, applicationName);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new String[] {rs.getString(1), rs.getString(2)} : new String[2];
      }
    } catch (SQLException e) {
      return new String[2];
    }
  }

  // ---------------------------------------------------------------- gates before failover

  private String concurrentInspections() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= 2 * INSPECT_LIMIT; i++) {
      ids.add(String.format("insp-%02d", i));
    }
    ConcurrentLinkedQueue<String> allowed = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Long> retryAfter = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    int[] perInstance = new int[2];
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(ids.size());
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        String id = ids.get(i);
        int instance = i % 2;
        AppInstance app = instance == 0 ? app1 : app2;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  try {
                    app.governance.inspect(IVAN, PROJECT, proposalId, id);
                    allowed.add(id);
                    synchronized (perInstance) {
                      perInstance[instance]++;
                    }
                  } catch (QuotaExceededException e) {
                    retryAfter.add(e.retryAfterSeconds());
                  } catch (RuntimeException e) {
                    errors.add(id + ": " + describe(e));
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    require(errors.isEmpty(), "unexpected errors: " + errors);
    require(
        allowed.size() == INSPECT_LIMIT && retryAfter.size() == INSPECT_LIMIT,
        "expected 8 allowed and 8 rejected, got " + allowed.size() + "/" + retryAfter.size());
    long minRetry = retryAfter.stream().mapToLong(Long::longValue).min().orElse(0);
    long maxRetry = retryAfter.stream().mapToLong(Long::longValue).max().orElse(0);
    require(
        minRetry >= 1 && maxRetry <= WINDOW.toSeconds(),
        "Retry-After outside 1.." + WINDOW.toSeconds() + ": " + retryAfter);
    Bucket bucket = bucket(nodeA, IVAN, QuotaOperation.INSPECT);
    require(bucket.count() == INSPECT_LIMIT, "durable count " + bucket.count() + " != 8");
    require(
        new TreeSet<>(bucket.receipts()).equals(new TreeSet<>(allowed)),
        "durable receipts " + bucket.receipts() + " != allowed " + allowed);
    acked(IVAN, QuotaOperation.INSPECT).addAll(allowed);
    return "16 distinct inspections from 2 instances (8 threads each) against limit 8: 8 allowed"
        + " (app1 "
        + perInstance[0]
        + ", app2 "
        + perInstance[1]
        + "), 8 rejected with Retry-After "
        + minRetry
        + ".."
        + maxRetry
        + " s; the primary's bucket holds count 8 and exactly the 8 allowed receipts";
  }

  private String replayDoesNotConsume() throws Exception {
    Bucket before = bucket(nodeA, IVAN, QuotaOperation.INSPECT);
    String admitted = before.receipts().get(0);
    Inspection viaApp1 = app1.governance.inspect(IVAN, PROJECT, proposalId, admitted).result();
    Inspection viaApp2 = app2.governance.inspect(IVAN, PROJECT, proposalId, admitted).result();
    require(
        viaApp1.proposal().proposalId().equals(proposalId)
            && viaApp2.proposal().proposalId().equals(proposalId),
        "replay returned another proposal");
    Bucket after = bucket(nodeA, IVAN, QuotaOperation.INSPECT);
    require(after.equals(before), "replay changed the bucket: " + before + " -> " + after);
    boolean freshRejected = false;
    try {
      app1.governance.inspect(IVAN, PROJECT, proposalId, "insp-fresh");
    } catch (QuotaExceededException e) {
      freshRejected = true;
    }
    require(freshRejected, "a fresh identity was admitted into a full window");
    require(
        bucket(nodeA, IVAN, QuotaOperation.INSPECT).equals(before),
        "the rejected request changed the bucket");
    return "replaying admitted "
        + admitted
        + " through both instances was allowed while the window was full; count stayed "
        + after.count()
        + ", receipts unchanged; a fresh identity was still rejected";
  }

  private String responseLossReplay() throws Exception {
    String id = "loss-1";
    app1.proxy.loseNextWriteResponse();
    boolean unavailable = false;
    try {
      app1.governance.inspect(LENA, PROJECT, proposalId, id);
    } catch (StoreUnavailableException e) {
      unavailable = true;
    }
    require(unavailable, "the client did not see the lost response as unavailable (503)");
    require(app1.proxy.responsesLost() == 1, "the proxy lost " + app1.proxy.responsesLost());
    Bucket committed = bucket(nodeA, LENA, QuotaOperation.INSPECT);
    require(
        committed.count() == 1 && committed.receipts().equals(List.of(id)),
        "the server did not commit exactly the lost request: " + committed);
    Inspection replay = app1.governance.inspect(LENA, PROJECT, proposalId, id).result();
    require(replay.proposal().proposalId().equals(proposalId), "replay returned another proposal");
    Bucket after = bucket(nodeA, LENA, QuotaOperation.INSPECT);
    require(
        after.count() == 1 && after.receipts().equals(List.of(id)),
        "the replay was counted again: " + after);
    Bucket onStandby = bucket(nodeB, LENA, QuotaOperation.INSPECT);
    require(onStandby.equals(after), "standby disagrees: " + onStandby + " vs " + after);
    acked(LENA, QuotaOperation.INSPECT).add(id);
    return "the proxy let the quota INSERT commit and dropped its response (client saw 503);"
        + " the replay of "
        + id
        + " was allowed and the durable count stayed 1 (primary and standby)";
  }

  private String windowResetOnDatabaseClock() throws Exception {
    // The window is moved by hand, as an operator would: a running process that holds the bucket
    // full (hot-bucket fast path) does not see that, so each step asks through a restarted one.
    // (a) 30 s of window left by the database clock: still full, Retry-After from the DB clock
    // (at most the 30 s; 30 s, not less, so that a commit waiting on the synchronous standby of a
    // busy machine cannot see the window end first).
    long dbNow = databaseNowMs(nodeA);
    setWindowStart(IVAN, QuotaOperation.INSPECT, dbNow - WINDOW.toMillis() + 30_000);
    long retry = -1;
    try {
      app2.newGovernance().inspect(IVAN, PROJECT, proposalId, "insp-late");
    } catch (QuotaExceededException e) {
      retry = e.retryAfterSeconds();
    }
    require(retry >= 1 && retry <= 30, "expected Retry-After 1..30 s, got " + retry);

    // (b) window over by the database clock: the next request restarts it at count 1.
    long before = databaseNowMs(nodeA);
    setWindowStart(IVAN, QuotaOperation.INSPECT, before - WINDOW.toMillis() - 1_000);
    app2.newGovernance().inspect(IVAN, PROJECT, proposalId, "insp-reset");
    long after = databaseNowMs(nodeA);
    Bucket bucket = bucket(nodeA, IVAN, QuotaOperation.INSPECT);
    require(
        bucket.count() == 1 && bucket.receipts().equals(List.of("insp-reset")),
        "window did not reset to count 1: " + bucket);
    require(
        bucket.windowStartMs() >= before && bucket.windowStartMs() <= after,
        "new window start "
            + bucket.windowStartMs()
            + " is not the database clock between "
            + before
            + " and "
            + after);
    acked(IVAN, QuotaOperation.INSPECT).clear();
    acked(IVAN, QuotaOperation.INSPECT).add("insp-reset");
    return "with 4 s left on the DB clock the full bucket answered Retry-After "
        + retry
        + " s; moved past the window, the next request reset it to count 1 with window start "
        + bucket.windowStartMs()
        + " within the DB clock readings ["
        + before
        + ", "
        + after
        + "]";
  }

  private String remoteApply() throws Exception {
    String[] replication = replicationState(nodeA, nodeB.name());
    require(
        "streaming".equals(replication[0]) && "sync".equals(replication[1]),
        "standby not a streaming sync standby: " + String.join("/", replication));
    String setting;
    try (Connection c = app1.manager.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW synchronous_commit")) {
      rs.next();
      setting = rs.getString(1);
    }
    require("remote_apply".equals(setting), "app sessions run synchronous_commit=" + setting);

    Approval approval =
        app2.governance.decide(BOB, PROJECT, approvalId, "dec-1", "approve", actionDigest).result();
    String onStandby =
        queryOne(
            nodeB,
            "SELECT decision_id || '/' || state FROM qinglong.plugin_package_approvals"
                + " WHERE project_id = '"
                + PROJECT
                + "' AND approval_id = '"
                + approval.approvalId()
                + "'");
    require("dec-1/approved".equals(onStandby), "decision not on the standby: " + onStandby);
    ackedDecisions.put(approval.approvalId(), "dec-1");
    acked(BOB, QuotaOperation.DECIDE).add("dec-1");
    require(
        bucket(nodeB, BOB, QuotaOperation.DECIDE).receipts().contains("dec-1"),
        "decide receipt not on the standby");

    int visible = 0;
    for (int i = 1; i <= 10; i++) {
      ProposeResult r = propose(i % 2 == 0 ? app1 : app2, "ha-ref-" + i);
      String id = r.proposal().proposalId();
      String found =
          queryOne(
              nodeB,
              "SELECT proposal_id FROM qinglong.plugin_package_proposals WHERE project_id = '"
                  + PROJECT
                  + "' AND proposal_id = '"
                  + id
                  + "'");
      if (id.equals(found)) {
        visible++;
      }
    }
    require(visible == 10, "only " + visible + "/10 acknowledged proposals were on the standby");
    return "standby "
        + nodeB.name()
        + " is streaming/sync, app sessions run synchronous_commit=remote_apply; the decision"
        + " dec-1, its quota receipt and 10/10 proposals were readable on the standby right after"
        + " they were acknowledged, without waiting";
  }

  // ---------------------------------------------------------------- model reservation race

  private void modelRaceBeforeFailover() {
    try {
      modelRaceBefore = modelRace("before", nodeA, nodeB);
    } catch (Exception | AssertionError e) {
      log.error("model reservation race before failover failed", e);
      modelRaceBeforeFailure = describe(e);
    }
  }

  private String modelRaceAfterFailover() throws Exception {
    require(
        modelRaceBeforeFailure == null,
        "before failover: " + modelRaceBeforeFailure + " (after failover not run)");
    require(modelRaceBefore != null, "the race before failover never ran");
    String survived =
        queryOne(
            nodeB,
            "SELECT count(*) || '/' || count(DISTINCT project_id)"
                + " FROM qinglong.model_invocation_reservations WHERE project_id LIKE"
                + " 'ha-model-before-%'");
    require(
        (MODEL_ROUNDS + "/" + MODEL_ROUNDS).equals(survived),
        "reservations admitted before failover on the new primary: " + survived);
    String after = modelRace("after", nodeB, nodeA);
    return "before failover: "
        + modelRaceBefore
        + "; all "
        + MODEL_ROUNDS
        + " reservations survived promotion; after promotion: "
        + after;
  }

  /**
   * {@value #MODEL_ROUNDS} rounds on {@code primary}: per round a fresh Project with {@code
   * maxInvocations=1} (day window), {@value #MODEL_RACERS} ready StepRuns, and as many admissions
   * released at once, alternating between the two instances (each its own {@code ql3_runtime}
   * pool). Exactly one must be admitted and the rest refused, durably on the primary and, by
   * remote_apply, on the synchronous standby.
   */
  private String modelRace(String phase, PgNode primary, PgNode standby) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(MODEL_RACERS);
    int[] perInstance = new int[2];
    long maxRetry = 0;
    try {
      for (int round = 1; round <= MODEL_ROUNDS; round++) {
        String project = "ha-model-" + phase + "-" + round;
        retryUntilAvailable(() -> app1.modelQuota.putModelPolicy(project, "m1", 10, null));
        // Exactly one admission a round: the round must not run across midnight (UTC).
        QuotaWindows.awaitRoom(QuotaWindow.ONE_DAY, System::currentTimeMillis);
        retryUntilAvailable(
            () -> app2.modelQuota.putProjectQuota(project, QuotaWindow.ONE_DAY, 1, 1_000, null));
        for (int i = 0; i < MODEL_RACERS; i++) {
          AppInstance app = i % 2 == 0 ? app1 : app2;
          String step = "s" + i;
          retryUntilAvailable(() -> app.modelQuota.createStepRun(project, step, "run", "m1"));
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Future<AdmissionOutcome>> futures = new ArrayList<>();
        for (int i = 0; i < MODEL_RACERS; i++) {
          AppInstance app = i % 2 == 0 ? app1 : app2;
          AdmissionRequest request = new AdmissionRequest(project, "inv" + i, "s" + i);
          futures.add(
              pool.submit(
                  () -> {
                    start.await();
                    return app.modelQuota.admit(request);
                  }));
        }
        start.countDown();
        int admitted = 0;
        int refused = 0;
        List<String> other = new ArrayList<>();
        for (int i = 0; i < MODEL_RACERS; i++) {
          AdmissionOutcome outcome;
          try {
            outcome = futures.get(i).get(60, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            other.add("inv" + i + ": " + describe(e.getCause()));
            continue;
          }
          if (outcome instanceof AdmissionOutcome.Admitted) {
            admitted++;
            perInstance[i % 2]++;
          } else if (outcome instanceof AdmissionOutcome.Refused r) {
            refused++;
            maxRetry = Math.max(maxRetry, r.retryAfterSeconds());
          } else {
            other.add("inv" + i + ": " + outcome);
          }
        }
        require(other.isEmpty(), phase + " round " + round + ": unexpected outcomes " + other);
        require(
            admitted == 1 && refused == MODEL_RACERS - 1,
            phase + " round " + round + ": " + admitted + " admitted, " + refused + " refused");
        String where =
            " FROM qinglong.model_invocation_reservations WHERE project_id = '" + project + "'";
        require(
            "1".equals(queryOne(primary, "SELECT count(*)" + where)),
            phase + " round " + round + ": the primary holds not exactly one reservation");
        require(
            "1".equals(queryOne(standby, "SELECT count(*)" + where)),
            phase + " round " + round + ": the synchronous standby does not show the reservation");
      }
    } finally {
      pool.shutdownNow();
    }
    return MODEL_ROUNDS
        + " rounds of "
        + MODEL_RACERS
        + " concurrent admissions (2 instances, ql3_runtime pools) on "
        + primary.name()
        + " with maxInvocations=1: exactly 1 admitted every round (app1 "
        + perInstance[0]
        + ", app2 "
        + perInstance[1]
        + "), the rest refused (Retry-After <= "
        + maxRetry
        + " s); one reservation per round on the primary and on standby "
        + standby.name();
  }

  // ---------------------------------------------------------------- failover

  private void failover() {
    gate(FENCE, this::fence);
    boolean fenced = report.gate(FENCE).passed();
    gate(
        PROMOTION,
        () -> {
          require(fenced, "not promoting: the old primary was not fenced");
          return promote();
        });
    // fence-before-promote is only settled once the new primary took writes: the old one must
    // still hold exactly what it held at the fence.
    if (fenced) {
      gate(FENCE, this::fenceHeld);
    }
  }

  private String fence() throws Exception {
    tablesAtFence = null;
    require(timeline(nodeA) == 1, "primary not on timeline 1 before failover");
    fencedAtNanos = System.nanoTime();
    app1.proxy.cut();
    app2.proxy.cut();
    await(
        "no app session left on the old primary",
        Duration.ofSeconds(10),
        () -> appSessionsOrMinusOne(nodeA) == 0);
    tablesAtFence = tables(nodeA);
    historyAtFence = schemaHistory(nodeA);
    grantsAtFence = grants(nodeA);
    int failedClosed = 0;
    for (AppInstance app : List.of(app1, app2)) {
      try {
        propose(app, "fenced-" + app.name);
        fenceProblems.add(app.name + " got a write acknowledged while fenced");
      } catch (StoreUnavailableException e) {
        failedClosed++;
      }
    }
    require(fenceProblems.isEmpty(), String.join("; ", fenceProblems));
    require(appSessions(nodeA) == 0, "an app session reached the fenced primary");
    require(tables(nodeA).equals(tablesAtFence), "the fenced primary changed");
    fenceDetail =
        "both proxies cut "
            + nodeA.name()
            + " off (refused "
            + (app1.proxy.refused() + app2.proxy.refused())
            + " connection attempts); "
            + failedClosed
            + "/2 writes during the fence failed closed (503)";
    return fenceDetail + "; awaiting the post-promotion check";
  }

  private String promote() throws Exception {
    promotedAtNanos = System.nanoTime();
    require(promotedAtNanos > fencedAtNanos, "promotion did not follow the fence");
    long tlBefore = timeline(nodeB);
    require(tlBefore == 1, "standby on timeline " + tlBefore + " before promotion");
    nodeB.promote();
    require(
        "f".equals(queryOne(nodeB, "SELECT pg_is_in_recovery()")),
        "promoted node still in recovery");
    try (Connection c = nodeB.connect("postgres");
        Statement st = c.createStatement()) {
      // The control file's timeline moves with the first checkpoint; pg_rewind needs it too.
      st.execute("CHECKPOINT");
      // Its primary_conninfo came from pg_basebackup -R and points at the old primary.
      st.execute("ALTER SYSTEM RESET primary_conninfo");
      st.execute("SELECT pg_reload_conf()");
    }
    long tlAfter = timeline(nodeB);
    require(tlAfter == 2, "timeline after promotion is " + tlAfter);

    // state-survives-promotion is judged before any app writes to the new primary.
    gate(STATE, this::stateSurvived);

    long reconnectStart = System.nanoTime();
    for (AppInstance app : List.of(app1, app2)) {
      app.proxy.retarget(nodeB.port());
      app.proxy.heal();
    }
    List<String> written = new ArrayList<>();
    for (AppInstance app : List.of(app1, app2)) {
      ProposeResult r = retryUntilAvailable(() -> propose(app, "after-promotion-" + app.name));
      Inspection seen =
          app.governance
              .inspect(IVAN, PROJECT, r.proposal().proposalId(), "after-" + app.name)
              .result();
      acked(IVAN, QuotaOperation.INSPECT).add("after-" + app.name);
      written.add(seen.proposal().proposalId());
    }
    require(appSessions(nodeB) > 0, "no app session on the new primary");
    return "timeline "
        + tlBefore
        + " -> "
        + tlAfter
        + " (pg_control_checkpoint) after pg_ctl promote of "
        + nodeB.name()
        + " "
        + millisBetween(fencedAtNanos, promotedAtNanos)
        + " ms after the fence; both instances reconnected and wrote (proposal + inspection) in "
        + millisSince(reconnectStart)
        + " ms";
  }

  private String fenceHeld() throws Exception {
    require(tablesAtFence != null, "the fence never completed");
    require(promotedAtNanos > fencedAtNanos, "no promotion after the fence");
    require(appSessions(nodeA) == 0, "an app session reached the old primary after the fence");
    Map<String, String> oldNow = tables(nodeA);
    require(
        oldNow.equals(tablesAtFence),
        "the old primary changed after the fence: " + tablesAtFence + " -> " + oldNow);
    require(
        !tables(nodeB).equals(oldNow), "the new primary took no writes; the check proves nothing");
    // A clean shutdown; its shutdown checkpoint lands on timeline 1 only, so the old primary has
    // really diverged from the new one and pg_rewind has work to do.
    nodeA.stopFast();
    return fenceDetail
        + "; promotion came "
        + millisBetween(fencedAtNanos, promotedAtNanos)
        + " ms after the fence; after the apps wrote to the new primary the old one still had"
        + " no app session and byte-identical tables, then it was shut down";
  }

  /** {@code column} of the gate Project's row of {@code table} with {@code idColumn} = id, on B. */
  private String onB(String column, String table, String idColumn, String id) throws Exception {
    return queryOne(
        nodeB,
        "SELECT %s FROM qinglong.%s WHERE project_id = '%s' AND %s = '%s'"
            .formatted(column, table, PROJECT, idColumn, id));
  }

  private String stateSurvived() throws Exception {
    List<String> problems = new ArrayList<>();
    Map<String, String> tablesB = tables(nodeB);
    if (!tablesB.equals(tablesAtFence)) {
      problems.add("tables differ: " + tablesAtFence + " vs " + tablesB);
    }
    for (Map.Entry<String, String> p : ackedProposals.entrySet()) {
      String digest = onB("action_digest", "plugin_package_proposals", "proposal_id", p.getKey());
      if (!p.getValue().equals(digest)) {
        problems.add("proposal " + p.getKey() + " lost or changed");
      }
    }
    for (Map.Entry<String, String> d : ackedDecisions.entrySet()) {
      if (!d.getValue()
          .equals(onB("decision_id", "plugin_package_approvals", "approval_id", d.getKey()))) {
        problems.add("decision on " + d.getKey() + " lost");
      }
    }
    int receipts = 0;
    for (Map.Entry<String, Set<String>> r : ackedReceipts.entrySet()) {
      String[] key = r.getKey().split("\\|");
      Bucket b = bucket(nodeB, new Principal(key[0]), QuotaOperation.valueOf(key[1]));
      if (!b.receipts().containsAll(r.getValue())) {
        problems.add("receipts lost in " + r.getKey() + ": " + r.getValue() + " vs " + b);
      }
      receipts += r.getValue().size();
    }
    List<String> historyB = schemaHistory(nodeB);
    if (!historyB.equals(historyAtFence)) {
      problems.add("schema history differs: " + historyAtFence + " vs " + historyB);
    }
    PGSimpleDataSource owner = new PGSimpleDataSource();
    owner.setUrl(nodeB.jdbcUrl(PgNode.DATABASE));
    owner.setUser(PgNode.SUPERUSER);
    try {
      // Checksums of the applied migrations against the scripts this build ships.
      if (!PostgresMigrations.flyway(owner).validateWithResult().validationSuccessful) {
        problems.add("flyway validate failed on the new primary");
      }
    } catch (RuntimeException e) {
      problems.add("flyway validate: " + describe(e));
    }
    List<String> grantsB = grants(nodeB);
    if (!grantsB.equals(grantsAtFence)) {
      problems.add("grants differ: " + grantsAtFence + " vs " + grantsB);
    }
    require(problems.isEmpty(), String.join("; ", problems));
    return ackedProposals.size()
        + " proposals, "
        + ackedDecisions.size()
        + " decision(s) and "
        + receipts
        + " current-window receipts acknowledged before the fence are on the new primary;"
        + " all 4 app tables are identical (row count + md5) to the old primary at the fence;"
        + " flyway history ("
        + historyB.size()
        + " rows, with checksums) identical and valid; "
        + grantsB.size()
        + " role/privilege facts identical";
  }

  private String rewindAndRejoin() throws Exception {
    require(!nodeA.running(), "the old primary is still running");
    String rewind = nodeA.rewindFrom(nodeB);
    String rewindSummary =
        rewind
            .lines()
            .filter(l -> l.contains("diverged") || l.contains("rewind") || l.contains("Done"))
            .reduce((a, b) -> a + " | " + b)
            .orElse(rewind);
    require(rewind.contains("Done!"), "pg_rewind did not finish: " + rewind);
    require(
        Files.exists(nodeA.dataDir().resolve("standby.signal")),
        "pg_rewind -R wrote no standby.signal");
    nodeA.start();
    nodeA.postmasterPid().ifPresent(pids::add);
    require("t".equals(queryOne(nodeA, "SELECT pg_is_in_recovery()")), "rejoined node is primary");
    await(
        "old primary streaming timeline 2 from the new primary",
        Duration.ofSeconds(60),
        () -> {
          try {
            return "streaming/2"
                .equals(
                    queryOne(
                        nodeA, "SELECT status || '/' || received_tli FROM pg_stat_wal_receiver"));
          } catch (SQLException e) {
            return false;
          }
        });
    makeSynchronous(nodeB, nodeA);

    ProposeResult r = propose(app1, "after-rejoin");
    String id = r.proposal().proposalId();
    String found =
        queryOne(
            nodeA,
            "SELECT proposal_id FROM qinglong.plugin_package_proposals WHERE project_id = '"
                + PROJECT
                + "' AND proposal_id = '"
                + id
                + "'");
    require(id.equals(found), "a write on the new primary is not on the rejoined standby");
    require(tables(nodeA).equals(tables(nodeB)), "rejoined standby and new primary differ");

    String readOnly = "accepted";
    try (Connection c = nodeA.connect();
        Statement st = c.createStatement()) {
      st.executeUpdate(
          "UPDATE qinglong.project_members SET updated_at_ms = updated_at_ms + 1"
              + " WHERE project_id = '"
              + PROJECT
              + "'");
    } catch (SQLException e) {
      readOnly = e.getSQLState();
    }
    require("25006".equals(readOnly), "write on the rejoined standby was " + readOnly);
    return "pg_rewind: "
        + rewindSummary
        + "; the old primary restarted as a hot standby streaming timeline 2 from "
        + nodeB.name()
        + ", is its synchronous standby (remote_apply: a new proposal was readable there at once),"
        + " holds identical app tables, and rejects writes (SQLSTATE 25006)";
  }

  // ---------------------------------------------------------------- cleanup and residue

  private synchronized void cleanup() {
    if (cleanedUp) {
      return;
    }
    cleanedUp = true;
    for (AppInstance app : new AppInstance[] {app1, app2}) {
      if (app != null) {
        try {
          app.close();
        } catch (RuntimeException e) {
          log.warn("closing {} failed", app, e);
        }
      }
    }
    for (PgNode node : new PgNode[] {nodeA, nodeB}) {
      if (node != null) {
        node.postmasterPid().ifPresent(pids::add);
        try {
          node.stopImmediately();
        } catch (RuntimeException e) {
          log.warn("stopping {} failed", node, e);
        }
      }
    }
    if (baseDir != null) {
      TempDirectories.deleteQuietly(baseDir);
    }
  }

  private String noResidue() throws Exception {
    List<String> left = new ArrayList<>();
    for (long pid : new LinkedHashSet<>(pids)) {
      if (Files.exists(Path.of("/proc", Long.toString(pid)))
          && processCommand(pid).contains("postgres")) {
        left.add("postmaster pid " + pid);
      }
    }
    // Every server process title carries this run's cluster_name.
    for (String process : processesMentioning(tag)) {
      left.add("process " + process);
    }
    for (int port : ports) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        left.add("port " + port + " still accepts connections");
      } catch (IOException expected) {
        // Refused: nothing listens any more.
      }
    }
    if (baseDir != null && Files.exists(baseDir)) {
      left.add("directory " + baseDir);
    }
    for (AppInstance app : new AppInstance[] {app1, app2}) {
      if (app != null
          && (!app.manager.isClosed() || !app.admin.isClosed() || !app.runtime.isClosed())) {
        left.add("open pool in " + app);
      }
      if (app != null && app.proxy.openLinks() > 0) {
        left.add("open proxy link in " + app);
      }
    }
    require(left.isEmpty(), "left behind: " + left);
    return "after cleanup: "
        + new LinkedHashSet<>(pids).size()
        + " postmaster pid(s) gone, no process titled "
        + tag
        + ", "
        + ports.size()
        + " ports (2 servers, 2 proxies) closed, "
        + (baseDir == null ? "no directory was created" : baseDir + " deleted")
        + ", pools closed";
  }

  private static String processCommand(long pid) {
    try {
      return new String(
              Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
              StandardCharsets.UTF_8)
          .replace('\0', ' ');
    } catch (IOException e) {
      return "";
    }
  }

  private static List<String> processesMentioning(String needle) {
    List<String> found = new ArrayList<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"))) {
      for (Path p : procs) {
        String name = p.getFileName().toString();
        if (name.chars().allMatch(Character::isDigit)) {
          String cmd = processCommand(Long.parseLong(name));
          if (cmd.contains(needle)) {
            found.add(name + " " + cmd.trim());
          }
        }
      }
    } catch (IOException e) {
      found.add("cannot list /proc: " + e);
    }
    return found;
  }

  // ---------------------------------------------------------------- helpers

  private ProposeResult propose(AppInstance app, String actionRef) {
    PluginPackageAction action =
        PluginPackageAction.of(
            "install",
            "ha-plugin",
            "1.0." + Math.abs(actionRef.hashCode() % 1000),
            "sha256:" + "ab".repeat(32));
    ProposeResult r = app.governance.propose(ALICE, PROJECT, actionRef, action).result();
    ackedProposals.put(r.proposal().proposalId(), r.proposal().actionDigest().value());
    acked(ALICE, QuotaOperation.PROPOSE).add(actionRef);
    return r;
  }

  private Set<String> acked(Principal user, QuotaOperation op) {
    return ackedReceipts.computeIfAbsent(user.userId() + "|" + op.name(), k -> new TreeSet<>());
  }

  private interface Attempt<T> {
    T run();
  }

  private static <T> T retryUntilAvailable(Attempt<T> attempt) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        return attempt.run();
      } catch (StoreUnavailableException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  record Bucket(long windowStartMs, int count, List<String> receipts) {}

  private static Bucket bucket(PgNode node, Principal user, QuotaOperation op) throws SQLException {
    try (Connection c = node.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT window_started_at_ms, consumed_count,"
                    // A receipt is {"id", "d"}.
                    + " ARRAY(SELECT e ->> 'id' FROM jsonb_array_elements(receipt_ids)"
                    + " WITH ORDINALITY AS r(e, n) ORDER BY n)"
                    + " FROM qinglong.plugin_package_management_quota_buckets"
                    + " WHERE project_id = ? AND subject_type = 'user' AND subject_id = ?"
                    + " AND operation = ?")) {
      ps.setString(1, PROJECT);
      ps.setString(2, user.userId());
      ps.setString(3, op.wireName());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Bucket(0, 0, List.of());
        }
        List<String> receipts = new ArrayList<>();
        for (Object o : (Object[]) rs.getArray(3).getArray()) {
          receipts.add((String) o);
        }
        return new Bucket(rs.getLong(1), rs.getInt(2), List.copyOf(receipts));
      }
    }
  }

  private void setWindowStart(Principal user, QuotaOperation op, long startMs) throws SQLException {
    try (Connection c = nodeA.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE qinglong.plugin_package_management_quota_buckets"
                    + " SET window_started_at_ms = ? WHERE project_id = ?"
                    + " AND subject_type = 'user' AND subject_id = ? AND operation = ?")) {
      ps.setLong(1, startMs);
      ps.setString(2, PROJECT);
      ps.setString(3, user.userId());
      ps.setString(4, op.wireName());
      require(ps.executeUpdate() == 1, "no bucket to move");
    }
  }

  private static long databaseNowMs(PgNode node) throws SQLException {
    return Long.parseLong(
        queryOne(node, "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"));
  }

  private static long timeline(PgNode node) throws SQLException {
    return Long.parseLong(queryOne(node, "SELECT timeline_id FROM pg_control_checkpoint()"));
  }

  private static int appSessions(PgNode node) throws SQLException {
    return Integer.parseInt(
        queryOne(node, "SELECT count(*) FROM pg_stat_activity WHERE usename LIKE 'ql3\\_%'"));
  }

  private static int appSessionsOrMinusOne(PgNode node) {
    try {
      return appSessions(node);
    } catch (SQLException e) {
      return -1;
    }
  }

  /** Row count and md5 of every app table, rows in a canonical order. */
  private static Map<String, String> tables(PgNode node) throws SQLException {
    Map<String, String> digests = new LinkedHashMap<>();
    for (String table : APP_TABLES) {
      digests.put(
          table,
          queryOne(
              node,
              "SELECT count(*) || ':' || md5(coalesce(string_agg(t::text, E'\\n' ORDER BY"
                  + " t::text), '')) FROM qinglong."
                  + table
                  + " t"));
    }
    return digests;
  }

  private static List<String> schemaHistory(PgNode node) throws SQLException {
    return queryAll(
        node,
        "SELECT installed_rank || ' ' || coalesce(version, '-') || ' ' || script || ' '"
            + " || coalesce(checksum::text, '-') || ' ' || success"
            + " FROM qinglong.flyway_schema_history ORDER BY installed_rank");
  }

  /** Role attributes, schema ACL, table owners and table privileges of the ql3_* roles. */
  private static List<String> grants(PgNode node) throws SQLException {
    List<String> facts = new ArrayList<>();
    facts.addAll(
        queryAll(
            node,
            "SELECT rolname || ' super=' || rolsuper || ' createrole=' || rolcreaterole"
                + " || ' createdb=' || rolcreatedb || ' login=' || rolcanlogin || ' inherit='"
                + " || rolinherit || ' replication=' || rolreplication"
                + " FROM pg_roles WHERE rolname LIKE 'ql3\\_%' ORDER BY rolname"));
    facts.addAll(
        queryAll(
            node,
            "SELECT 'schema acl ' || nspacl::text FROM pg_namespace WHERE nspname = 'qinglong'"));
    facts.addAll(
        queryAll(
            node,
            "SELECT c.relname || ' owner=' || pg_get_userbyid(c.relowner) || ' '"
                + " || r.rolname || ' ' || a.privilege_type"
                + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,"
                + " aclexplode(c.relacl) a JOIN pg_roles r ON r.oid = a.grantee"
                + " WHERE n.nspname = 'qinglong' ORDER BY 1"));
    require(facts.size() > PostgresLogins.ALL.size(), "suspiciously few grant facts: " + facts);
    return facts;
  }

  private static String queryOne(PgNode node, String sql) throws SQLException {
    List<String> rows = queryAll(node, sql);
    return rows.isEmpty() ? null : rows.get(0);
  }

  private static List<String> queryAll(PgNode node, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = node.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        rows.add(rs.getString(1));
      }
    }
    return rows;
  }

  private static void await(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after " + timeout.toSeconds() + " s waiting for " + what);
      }
      Thread.sleep(100);
    }
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new AssertionError(message);
    }
  }

  private String nodeLogs() {
    StringBuilder logs = new StringBuilder();
    for (PgNode node : new PgNode[] {nodeA, nodeB}) {
      if (node != null) {
        logs.append("\n--- ").append(node.name()).append(" log ---\n").append(node.logTail());
      }
    }
    return logs.toString();
  }

  private static String describe(Throwable e) {
    String message = e.getClass().getSimpleName() + ": " + Objects.toString(e.getMessage(), "");
    return e.getCause() == null || e.getCause() == e
        ? message
        : message + " (cause: " + describe(e.getCause()) + ")";
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  private static long millisBetween(long fromNanos, long toNanos) {
    return (toNanos - fromNanos) / 1_000_000;
  }
}
