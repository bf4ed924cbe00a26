package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.WireNamed;
import dev.qinglong.core.quota.BucketReading;
import dev.qinglong.core.quota.BucketsSnapshot;
import dev.qinglong.core.quota.EffectiveLimit;
import dev.qinglong.core.quota.LimitSource;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaLimits;
import dev.qinglong.core.quota.QuotaLimitsRevision;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.core.quota.ShadowRefusal;
import dev.qinglong.core.quota.SubjectType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * {@link ManagementQuotaStore} over JDBC: the dialect's single decision statement ({@link
 * JdbcDialect#decideStatement}) decides and classifies every outcome in auto-commit, on the
 * database clock ({@link JdbcDialect#nowMs}), never the application's; {@link BucketReading} checks
 * the row it returns. There is no read-back statement: a refusal or a replay is answered from the
 * row the deciding statement locked.
 *
 * <p>A new receipt id for a bucket that this instance has seen full in the current window is
 * refused without a connection or a statement ({@link HotBuckets}); an id that may be in the bucket
 * still goes to the database. Use one instance per process, so that the fast path has something to
 * remember.
 *
 * <p>Coalescing (docs/stores.md#coalescing-postgresql): when the dialect has a {@link
 * JdbcDialect#decideBatchStatement batch form}, concurrent decisions of one instance are grouped by
 * a {@link Coalescer}: a caller that finds fewer than {@link Coalescing#maxInFlight} batches
 * running decides at once, alone; the others queue, and the next batch decides everything queued in
 * one statement, committed once, so one commit's flush serves many decisions and a small pool is
 * enough. A bucket's requests in one batch go into successive statements (rounds), in arrival
 * order, each committed on its own: no lock is held from one round to the next. A batch whose
 * statement fails fails exactly the requests of that statement and of the rounds after it, with
 * {@link StoreUnavailableException}.
 */
public final class JdbcManagementQuotaStore implements ManagementQuotaStore {
  /**
   * Runs of the statement for one decision. A second run happens only when another transaction
   * created the bucket after the first run's snapshot (PostgreSQL); buckets are never deleted, so
   * the second run finds it, locks it and decides.
   */
  private static final int RUNS = 2;

  /** The element types of {@link JdbcDialect#decideBatchStatement}'s eight arrays. */
  private static final String[] BATCH_TYPES = {
    "text", "text", "text", "text", "text", "text", "bigint", "integer"
  };

  /**
   * A subject's buckets, with the limits set for it and the database clock, in one statement: one
   * row per operation this code counts (listed as literals, so no login needs to read {@code
   * management_quota_operations}), its bucket if any, the Project's and the user's latest limit and
   * shadow limit. Written once: both databases run it.
   */
  private static final String BUCKETS =
      """
      SELECT s.now_ms, o.operation, b.window_started_at_ms, b.consumed_count,
             %2$s, %3$s, %4$s, %5$s
      FROM (SELECT CAST(? AS text) AS project_id, CAST(? AS text) AS subject_type,
                   CAST(? AS text) AS subject_id, %1$s AS now_ms) s
      CROSS JOIN (%6$s) o
      LEFT JOIN plugin_package_management_quota_buckets b
        ON b.project_id = s.project_id AND b.subject_type = s.subject_type
       AND b.subject_id = s.subject_id AND b.operation = o.operation
      ORDER BY o.operation
      """;

  /** The latest value of a limit column for the subject {@code s}'s user or Project, {@code o}. */
  private static final String LATEST_LIMIT =
      """
      (SELECT l.%s FROM management_quota_limits l
       WHERE l.project_id = s.project_id AND l.user_id = %s AND l.operation = o.operation
       ORDER BY l.revision DESC LIMIT 1)""";

  /**
   * How long {@link #putLimits} waits after its commit, beyond the fast path's longest hold, for
   * the monotonic clocks of other hosts running a little faster than this one's (NTP slews a clock
   * by at most 500 ppm: 0.5 ms a second; this is a hundred times that).
   */
  private static final Duration HOLD_MARGIN = Duration.ofMillis(50);

  /**
   * How decisions are grouped: at most {@code maxInFlight} batches (so connections) at once, at
   * most {@code maxBatch} decisions in one, and a queued decision waits at most {@code maxWait} for
   * its answer (then {@link StoreUnavailableException}). {@code maxBatch} 1 turns grouping off:
   * every decision runs alone on its own connection, as many at once as callers.
   */
  public record Coalescing(int maxInFlight, int maxBatch, Duration maxWait) {
    /** Decisions in one batch at most by default. */
    public static final int DEFAULT_MAX_BATCH = 64;

    /** How long a queued decision waits at most by default. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);

    /** Two batches at once: the default {@code ql3_package_manager} pool of 2 connections. */
    public static final Coalescing DEFAULTS = forPool(2);

    /** No grouping. */
    public static final Coalescing OFF = new Coalescing(1, 1, DEFAULT_MAX_WAIT);

    public Coalescing {
      if (maxInFlight < 1 || maxBatch < 1) {
        throw new IllegalArgumentException("maxInFlight and maxBatch must be at least 1");
      }
      Objects.requireNonNull(maxWait, "maxWait");
      if (maxWait.isNegative() || maxWait.isZero()) {
        throw new IllegalArgumentException("maxWait must be positive");
      }
    }

    /** As many batches at once as the pool has connections; the default batch size and wait. */
    public static Coalescing forPool(int connections) {
      return new Coalescing(connections, DEFAULT_MAX_BATCH, DEFAULT_MAX_WAIT);
    }
  }

  /** One decision asked for, with the default limit (the statement resolves the effective one). */
  private record Request(
      QuotaKey key, ReceiptId receipt, RequestDigest digest, int defaultLimit, Duration window) {
    /** Its parameters of {@link JdbcDialect#decideStatement}, in order. */
    Object[] parameters() {
      return new Object[] {
        key.projectId(),
        key.subjectType().wireName(),
        key.subjectId(),
        key.operation().wireName(),
        receipt.value(),
        digest.hex(),
        window.toMillis(),
        defaultLimit
      };
    }
  }

  private final JdbcTransactions jdbc;
  private final JdbcTransactions policyWrites;
  private final JdbcDialect dialect;
  private final String store;
  private final String buckets;
  private final String decide;
  private final String decideBatch;
  private final HotBuckets hot;
  private final Coalescer<Request, QuotaDecision> coalescer;

  public JdbcManagementQuotaStore(DataSource dataSource, JdbcDialect dialect) {
    this(dataSource, dialect, System::nanoTime);
  }

  /** With how decisions are grouped, e.g. {@link Coalescing#forPool} with the pool's size. */
  public JdbcManagementQuotaStore(
      DataSource dataSource, JdbcDialect dialect, Coalescing coalescing) {
    this(dataSource, dialect, System::nanoTime, coalescing);
  }

  /**
   * With the monotonic clock the hot-bucket fast path measures time on ({@link System#nanoTime} in
   * production; tests give one with another origin). It is never compared with a database time,
   * only used to measure how much of the database's remaining window has passed.
   */
  public JdbcManagementQuotaStore(
      DataSource dataSource, JdbcDialect dialect, LongSupplier nanoTime) {
    this(dataSource, dialect, nanoTime, Coalescing.DEFAULTS);
  }

  /**
   * With the monotonic clock of the fast path and how decisions are grouped. Grouping needs the
   * dialect's {@link JdbcDialect#decideBatchStatement}; without it, or with {@link Coalescing#OFF},
   * every decision runs alone.
   */
  public JdbcManagementQuotaStore(
      DataSource dataSource, JdbcDialect dialect, LongSupplier nanoTime, Coalescing coalescing) {
    this(dataSource, dataSource, dialect, nanoTime, coalescing);
  }

  /**
   * With the pool of the limit revisions' writes ({@link #putLimits}): a policy write, on
   * PostgreSQL the admin login's (only it may insert them); everything else runs on {@code
   * dataSource}.
   */
  public JdbcManagementQuotaStore(
      DataSource dataSource,
      DataSource policyWrites,
      JdbcDialect dialect,
      LongSupplier nanoTime,
      Coalescing coalescing) {
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.policyWrites = new JdbcTransactions(policyWrites, dialect);
    this.dialect = dialect;
    this.store = dialect.name();
    this.decide = Objects.requireNonNull(dialect.decideStatement());
    this.decideBatch = dialect.decideBatchStatement();
    this.hot =
        new HotBuckets(nanoTime, HotBuckets.DEFAULT_MAX_RECEIPTS, HotBuckets.DEFAULT_MAX_HOLD);
    this.buckets =
        BUCKETS.formatted(
            dialect.nowMs(),
            LATEST_LIMIT.formatted("limit_value", "''"),
            LATEST_LIMIT.formatted("limit_value", "s.subject_id"),
            LATEST_LIMIT.formatted("shadow_limit", "''"),
            LATEST_LIMIT.formatted("shadow_limit", "s.subject_id"),
            // The operations this code counts, as literals (wire names are plain tokens).
            Arrays.stream(QuotaOperation.values())
                .map(op -> "SELECT '" + op.wireName() + "' AS operation")
                .collect(Collectors.joining(" UNION ALL ")));
    Objects.requireNonNull(coalescing, "coalescing");
    this.coalescer =
        decideBatch == null || coalescing.maxBatch() == 1
            ? null
            : new Coalescer<>(
                "quota decision",
                this::decideAll,
                coalescing.maxInFlight(),
                coalescing.maxBatch(),
                coalescing.maxWait());
  }

  @Override
  public BucketsSnapshot buckets(String projectId, SubjectType subjectType, String subjectId) {
    return jdbc.query(
        "quota read",
        buckets,
        rs -> {
          long now = 0;
          Map<QuotaOperation, BucketsSnapshot.Bucket> found = new EnumMap<>(QuotaOperation.class);
          Map<QuotaOperation, BucketsSnapshot.Overrides> limits =
              new EnumMap<>(QuotaOperation.class);
          boolean any = false;
          while (rs.next()) {
            any = true;
            now = rs.getLong(1);
            Long windowStart = JdbcRows.nullableLong(rs, 3);
            QuotaOperation op = WireNamed.stored(QuotaOperation.class, rs.getString(2));
            if (windowStart != null) {
              found.put(op, new BucketsSnapshot.Bucket(windowStart, rs.getInt(4)));
            }
            limits.put(
                op,
                new BucketsSnapshot.Overrides(
                    JdbcRows.nullableInt(rs, 5),
                    JdbcRows.nullableInt(rs, 6),
                    JdbcRows.nullableInt(rs, 7),
                    JdbcRows.nullableInt(rs, 8)));
          }
          if (!any) {
            throw new StoreUnavailableException("quota read returned no clock");
          }
          try {
            return new BucketsSnapshot(now, found, limits);
          } catch (RuntimeException e) {
            throw new StoreUnavailableException("corrupt quota limit row", e);
          }
        },
        projectId,
        subjectType.wireName(),
        subjectId);
  }

  /**
   * Appends the revision on the policy-writes pool ({@link QuotaLimitRows#append}), then waits
   * until no instance can still refuse from memory under the limit it replaces: the fast path holds
   * a statement's refusal at most {@link HotBuckets#DEFAULT_MAX_HOLD} from the moment it was sent,
   * and a statement that did not see this revision was sent before the commit returned (see {@link
   * HotBuckets}). A revision equal to the latest is not written again and needs no wait.
   */
  @Override
  public QuotaLimitsRevision putLimits(
      String projectId, String userId, QuotaLimits limits, String setBy) {
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(setBy, "setBy");
    QuotaLimitRows.Written written =
        policyWrites.retryingTransaction(
            "quota limits write",
            c -> QuotaLimitRows.append(c, dialect, projectId, userId, limits, setBy));
    if (written.written()) {
      awaitHoldsEnded(System.nanoTime());
    }
    return written.revision();
  }

  /**
   * Waits, on this host's monotonic clock (the one the fast paths of all instances hold on, not the
   * injected one of tests), until every refusal held from a statement sent before {@code
   * committedNanos} has expired. A wait on the clock itself: there is nothing else to wait on.
   */
  private static void awaitHoldsEnded(long committedNanos) {
    long until = committedNanos + HotBuckets.DEFAULT_MAX_HOLD.plus(HOLD_MARGIN).toNanos();
    for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
      LockSupport.parkNanos(left);
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new StoreUnavailableException("interrupted while the quota limits came into force");
      }
    }
  }

  @Override
  public Optional<QuotaLimitsRevision> limits(String projectId, String userId) {
    Objects.requireNonNull(projectId, "projectId");
    return jdbc.autoCommit("quota limits read", c -> QuotaLimitRows.latest(c, projectId, userId));
  }

  @Override
  public List<QuotaLimitsRevision> userLimits(String projectId, String afterUserId, int size) {
    Objects.requireNonNull(projectId, "projectId");
    JdbcRows.requireLimit(size);
    return jdbc.autoCommit(
        "quota limits read", c -> QuotaLimitRows.users(c, projectId, afterUserId, size));
  }

  @Override
  public List<ShadowRefusal> shadowRefusals(String projectId, Duration window, int size) {
    Objects.requireNonNull(projectId, "projectId");
    JdbcRows.requireLimit(size);
    return jdbc.autoCommit(
        "shadow refusals read",
        c -> QuotaLimitRows.shadowRefusals(c, dialect, projectId, window, size));
  }

  @Override
  public QuotaDecision consume(
      QuotaKey key, ReceiptId receipt, RequestDigest request, int defaultLimit, Duration window) {
    Objects.requireNonNull(receipt, "receipt");
    Objects.requireNonNull(request, "request");
    if (defaultLimit < 1 || defaultLimit > 1000) {
      throw new IllegalArgumentException("limit must be 1..1000");
    }
    QuotaDecision.Rejected known = hot.refuse(key, receipt, defaultLimit, window);
    if (known != null) {
      return known;
    }
    Request r = new Request(key, receipt, request, defaultLimit, window);
    if (coalescer != null) {
      return coalescer.call(r);
    }
    // Before the statement is sent: the deadline of a bucket it finds full must not outlast it.
    long sentAtNanos = hot.nanoTime();
    Decided decided =
        jdbc.autoCommit(
            "quota decision",
            c -> {
              for (int run = 0; run < RUNS; run++) {
                Decided d = decide(c, r);
                if (d != null) {
                  return d;
                }
              }
              throw new StoreUnavailableException(
                  "quota decision undetermined after " + RUNS + " runs");
            });
    return decided(r, decided, sentAtNanos);
  }

  /** The decision of {@code d}, the bucket remembered by the fast path when it is full. */
  private QuotaDecision decided(Request r, Decided d, long sentAtNanos) {
    QuotaDecision decision = d.reading().decision(r.window());
    if (d.fullReceiptIds() != null) {
      hot.remember(
          r.key(), r.defaultLimit(), r.window(), sentAtNanos, d.reading(), d.fullReceiptIds());
    }
    return decision;
  }

  /**
   * Decides a batch ({@link Coalescer.Runner}) on one connection: the requests split into rounds
   * with one request per bucket each (a bucket's n-th request in round n, so in arrival order),
   * each round one statement committed on its own, a round of one request the single statement. A
   * new id for a bucket an earlier round (or batch) found full is refused by the fast path ({@link
   * HotBuckets}), without a statement. Once a statement fails, its requests and those of the later
   * rounds fail; earlier rounds' answers stand (they are committed).
   */
  private List<Coalescer.Answer<QuotaDecision>> decideAll(List<Request> requests) {
    List<List<Integer>> rounds = new ArrayList<>();
    Map<QuotaKey, Integer> seen = new HashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      int round = seen.merge(requests.get(i).key(), 1, Integer::sum) - 1;
      if (round == rounds.size()) {
        rounds.add(new ArrayList<>());
      }
      rounds.get(round).add(i);
    }
    List<Coalescer.Answer<QuotaDecision>> answers =
        new ArrayList<>(Collections.nCopies(requests.size(), null));
    return jdbc.autoCommit(
        "quota decision",
        c -> {
          for (int round = 0; round < rounds.size(); round++) {
            try {
              // An earlier round or batch may have found the bucket full since the caller asked:
              // new ids are refused as the fast path in consume refuses them, without a statement.
              List<Integer> open = notRefused(requests, rounds.get(round), answers);
              if (!open.isEmpty()) {
                decideRound(c, requests, open, answers);
              }
            } catch (SQLException | RuntimeException e) {
              StoreUnavailableException failure =
                  e instanceof SQLException sql
                      ? SqlFailures.unavailable(store, "quota decision", sql)
                      : e instanceof StoreUnavailableException s
                          ? s
                          : new StoreUnavailableException("quota decision failed", e);
              for (int later = round; later < rounds.size(); later++) {
                for (int i : rounds.get(later)) {
                  answers.set(i, Coalescer.Answer.failed(failure));
                }
              }
              break;
            }
          }
          return answers;
        });
  }

  /** The requests at {@code indexes} that the fast path does not refuse; the refused answered. */
  private List<Integer> notRefused(
      List<Request> requests,
      List<Integer> indexes,
      List<Coalescer.Answer<QuotaDecision>> answers) {
    List<Integer> open = new ArrayList<>(indexes.size());
    for (int i : indexes) {
      Request r = requests.get(i);
      QuotaDecision.Rejected known = hot.refuse(r.key(), r.receipt(), r.defaultLimit(), r.window());
      if (known != null) {
        answers.set(i, Coalescer.Answer.of(known));
      } else {
        open.add(i);
      }
    }
    return open;
  }

  /** One round: every request's answer set, or a throw for the whole round. */
  private void decideRound(
      Connection c,
      List<Request> requests,
      List<Integer> round,
      List<Coalescer.Answer<QuotaDecision>> answers)
      throws SQLException {
    List<Integer> open = round;
    for (int run = 0; run < RUNS && !open.isEmpty(); run++) {
      // Before the statement is sent: the deadline of a bucket it finds full must not outlast it.
      long sentAtNanos = hot.nanoTime();
      List<Decided> decided =
          open.size() == 1
              ? Collections.singletonList(decide(c, requests.get(open.get(0))))
              : decideBatch(c, requests, open);
      List<Integer> undecided = new ArrayList<>();
      for (int k = 0; k < open.size(); k++) {
        int i = open.get(k);
        Decided d = decided.get(k);
        if (d == null) {
          undecided.add(i);
          continue;
        }
        try {
          answers.set(i, Coalescer.Answer.of(decided(requests.get(i), d, sentAtNanos)));
        } catch (RuntimeException e) {
          answers.set(i, Coalescer.Answer.failed(e));
        }
      }
      open = undecided;
    }
    for (int i : open) {
      answers.set(
          i,
          Coalescer.Answer.failed(
              new StoreUnavailableException(
                  "quota decision undetermined after " + RUNS + " runs")));
    }
  }

  /**
   * One run of the batch statement for the requests at {@code indexes} (distinct buckets): one
   * entry per request, in order, null where it could not decide (see {@link #RUNS}).
   */
  private List<Decided> decideBatch(Connection c, List<Request> requests, List<Integer> indexes)
      throws SQLException {
    int n = indexes.size();
    // Element i of each array is request i's parameter of JdbcDialect#decideStatement.
    Object[][] columns = {
      new String[n],
      new String[n],
      new String[n],
      new String[n],
      new String[n],
      new String[n],
      new Long[n],
      new Integer[n]
    };
    for (int k = 0; k < n; k++) {
      Object[] parameters = requests.get(indexes.get(k)).parameters();
      for (int p = 0; p < columns.length; p++) {
        columns[p][k] = parameters[p];
      }
    }
    List<Decided> decided = new ArrayList<>(Collections.nCopies(n, null));
    boolean[] answered = new boolean[n];
    try (PreparedStatement ps = c.prepareStatement(decideBatch)) {
      // The parameters of JdbcDialect#decideBatchStatement.
      for (int p = 0; p < columns.length; p++) {
        ps.setArray(p + 1, c.createArrayOf(BATCH_TYPES[p], columns[p]));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          int k = rs.getInt(1) - 1;
          if (k < 0 || k >= n || answered[k]) {
            throw new StoreUnavailableException("quota batch decision: unexpected row " + (k + 1));
          }
          answered[k] = true;
          String outcome = rs.getString(2);
          if (outcome == null) {
            continue;
          }
          decided.set(k, Decided.of(outcome, rs, 3));
        }
      }
    }
    for (int k = 0; k < n; k++) {
      if (!answered[k]) {
        throw new StoreUnavailableException("quota batch decision: no row for a request");
      }
    }
    return decided;
  }

  /** The statement's reading, with the receipt ids of a full bucket. */
  private record Decided(BucketReading reading, String fullReceiptIds) {
    /**
     * From a decision row whose columns from {@code first} on are {@code (window_started_at_ms,
     * consumed_count, receipt_count, now_ms, full_receipt_ids, max_count, shadow_count,
     * limit_source)}, after the outcome.
     */
    static Decided of(String outcome, ResultSet rs, int first) throws SQLException {
      int max = rs.getInt(first + 5);
      if (rs.wasNull()) {
        throw new StoreUnavailableException("quota decision returned no limit");
      }
      EffectiveLimit limit =
          new EffectiveLimit(
              max,
              WireNamed.stored(LimitSource.class, rs.getString(first + 7)),
              JdbcRows.nullableInt(rs, first + 6));
      return new Decided(
          new BucketReading(
              BucketReading.Outcome.fromWire(outcome),
              rs.getLong(first),
              rs.getInt(first + 1),
              rs.getInt(first + 2),
              rs.getLong(first + 3),
              limit),
          rs.getString(first + 4));
    }
  }

  /** One run of the statement; null when it could not decide (see {@link #RUNS}). */
  private Decided decide(Connection c, Request r) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(decide)) {
      JdbcRows.bind(ps, r.parameters());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          // SQLite: the statement refuses to update a corrupt bucket and so returns nothing.
          throw new StoreUnavailableException("corrupt quota bucket: no decision row");
        }
        String outcome = rs.getString(1);
        return outcome == null ? null : Decided.of(outcome, rs, 2);
      }
    }
  }
}
