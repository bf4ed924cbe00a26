package dev.qinglong.jdbc;

import dev.qinglong.core.ai.AdmissionOutcome;
import dev.qinglong.core.ai.AdmissionRequest;
import dev.qinglong.core.ai.Completion;
import dev.qinglong.core.ai.CompletionOutcome;
import dev.qinglong.core.ai.CompletionRequest;
import dev.qinglong.core.ai.InvocationOutcome;
import dev.qinglong.core.ai.InvocationStart;
import dev.qinglong.core.ai.ModelInvocationPolicy;
import dev.qinglong.core.ai.ModelQuotaRules;
import dev.qinglong.core.ai.ModelQuotaStore;
import dev.qinglong.core.ai.ProjectQuotaPolicy;
import dev.qinglong.core.ai.QuotaWindow;
import dev.qinglong.core.ai.Reservation;
import dev.qinglong.core.ai.Settlement;
import dev.qinglong.core.ai.StepRun;
import dev.qinglong.core.ai.StepRunCreation;
import dev.qinglong.core.ai.StepRunState;
import dev.qinglong.core.ai.TokenUsage;
import dev.qinglong.core.ai.UsageLedgerEntry;
import dev.qinglong.core.ai.WindowBudget;
import dev.qinglong.core.ai.WindowRef;
import dev.qinglong.core.ai.WindowUsageReading;
import dev.qinglong.core.model.Sha256Digest;
import dev.qinglong.core.model.StoreUnavailableException;
import dev.qinglong.core.model.ValidationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@link ModelQuotaStore} over JDBC. Every admission and completion is one transaction that reads
 * what the decision depends on, lets {@link ModelQuotaRules} decide and writes the receipts. The
 * clock is the database's own, read once per transaction. Adapters subclass it with their SQL and
 * with how their dialect serialises those transactions:
 *
 * <ul>
 *   <li>{@link #lockWindow} before anything the admission or completion decision depends on is read
 *       (completion finds its window only in the reservation, so it re-reads under the lock), then,
 *       in completion only, {@link #lockLedger} for the Project's ledger sequence. Always in that
 *       order, so two transactions cannot deadlock on them. A dialect whose transactions already
 *       hold the only writer lock from their start needs neither.
 *   <li>{@link #snapshotIsolation} for reads that must see one consistent state.
 * </ul>
 *
 * <p>Writes that race outside a shared lock (a StepRun admitted in two windows at a boundary, two
 * policy writers) meet a unique constraint (SQLState {@code 23505}); the transaction is then
 * retried and sees the winner. Where a dialect serialises whole transactions no such race exists
 * and the retry never fires.
 */
public abstract class JdbcModelQuotaStore implements ModelQuotaStore {
  /** A transaction that met a unique constraint is retried this often. */
  private static final int ATTEMPTS = 3;

  /** SQLState of a unique violation: a concurrent writer won. */
  private static final String UNIQUE_VIOLATION = "23505";

  private final DataSource dataSource;
  private final ModelQuotaSql sql;
  private final String storeName;

  protected JdbcModelQuotaStore(DataSource dataSource, ModelQuotaSql sql, String storeName) {
    this.dataSource = Objects.requireNonNull(dataSource);
    this.sql = Objects.requireNonNull(sql);
    this.storeName = Objects.requireNonNull(storeName);
  }

  // --- dialect hooks ---

  /**
   * Serialises the transaction on {@code connection} with every other admission and completion in
   * {@code window} until it ends. Admission calls it as soon as it knows the window (from the clock
   * and the quota policy), before reading anything else; completion once the reservation names the
   * window.
   *
   * @return true if a lock was taken now, so that what the transaction read before may be stale and
   *     must be read again; the default takes none and returns false, for a dialect whose
   *     transactions are serialised from their start
   */
  protected boolean lockWindow(Connection connection, WindowRef window) throws SQLException {
    return false;
  }

  /**
   * Serialises appends to {@code projectId}'s UsageLedger until the transaction ends, so that
   * ledger sequence numbers are gap-free and commit in order. Called by completion only, always
   * after {@link #lockWindow}, never before. The default takes no lock.
   */
  protected void lockLedger(Connection connection, String projectId) throws SQLException {}

  /**
   * The isolation level ({@link Connection#TRANSACTION_REPEATABLE_READ} and so on) of reads that
   * must see one consistent state, such as the window usage from two window heads; the connection
   * is set back to {@link Connection#TRANSACTION_READ_COMMITTED} after them. The default, {@link
   * Connection#TRANSACTION_NONE}, leaves the connection's level alone: for a dialect whose
   * transactions are serialisable anyway.
   */
  protected int snapshotIsolation() {
    return Connection.TRANSACTION_NONE;
  }

  // --- transactions ---

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work} in one transaction, retried when a unique constraint shows that a concurrent
   * writer won (a driver that reports no SQLState, like SQLite's, is never retried). Paths that
   * decide "no" have written nothing, so committing them is the same as rolling back.
   */
  private <T> T transaction(String operation, Work<T> work) {
    return transaction(operation, false, work);
  }

  /** As above; {@code snapshot}: at {@link #snapshotIsolation}. */
  private <T> T transaction(String operation, boolean snapshot, Work<T> work) {
    int isolation = snapshot ? snapshotIsolation() : Connection.TRANSACTION_NONE;
    SQLException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try (Connection c = dataSource.getConnection()) {
        if (isolation != Connection.TRANSACTION_NONE) {
          c.setTransactionIsolation(isolation);
        }
        c.setAutoCommit(false);
        try {
          T result = work.run(c);
          c.commit();
          return result;
        } catch (SQLException | RuntimeException e) {
          c.rollback();
          throw e;
        } finally {
          c.setAutoCommit(true);
          if (isolation != Connection.TRANSACTION_NONE) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
          }
        }
      } catch (SQLException e) {
        if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
          throw JdbcStoreException.unavailable(storeName, operation, e);
        }
        last = e;
      }
    }
    throw JdbcStoreException.unavailable(storeName, operation + " (still contended)", last);
  }

  // --- the port ---

  @Override
  public ModelInvocationPolicy putModelPolicy(
      String projectId, String modelId, long maxTotalTokens, Long maxCostMicros) {
    return transaction(
        "model policy write",
        c -> {
          Optional<ModelInvocationPolicy> latest = modelPolicy(c, projectId, modelId);
          if (latest.isPresent() && latest.get().sameLimits(maxTotalTokens, maxCostMicros)) {
            return latest.get();
          }
          ModelInvocationPolicy next =
              new ModelInvocationPolicy(
                  projectId,
                  modelId,
                  latest.map(p -> p.revision() + 1).orElse(1L),
                  maxTotalTokens,
                  maxCostMicros,
                  now(c));
          try (PreparedStatement ps = c.prepareStatement(sql.insertModelPolicy())) {
            ps.setString(1, projectId);
            ps.setString(2, modelId);
            ps.setLong(3, next.revision());
            ps.setLong(4, maxTotalTokens);
            setNullableLong(ps, 5, maxCostMicros);
            ps.setLong(6, next.createdAtMs());
            ps.executeUpdate();
          }
          return next;
        });
  }

  @Override
  public Optional<ModelInvocationPolicy> modelPolicy(String projectId, String modelId) {
    return transaction("model policy read", c -> modelPolicy(c, projectId, modelId));
  }

  @Override
  public ProjectQuotaPolicy putProjectQuota(
      String projectId,
      QuotaWindow window,
      long maxInvocations,
      long maxTokens,
      Long maxCostMicros) {
    return transaction(
        "project quota write",
        c -> {
          Optional<ProjectQuotaPolicy> latest = projectQuota(c, projectId);
          if (latest.isPresent()
              && latest.get().sameLimits(window, maxInvocations, maxTokens, maxCostMicros)) {
            return latest.get();
          }
          ProjectQuotaPolicy next =
              new ProjectQuotaPolicy(
                  projectId,
                  latest.map(p -> p.revision() + 1).orElse(1L),
                  window,
                  maxInvocations,
                  maxTokens,
                  maxCostMicros,
                  now(c));
          try (PreparedStatement ps = c.prepareStatement(sql.insertQuotaPolicy())) {
            ps.setString(1, projectId);
            ps.setLong(2, next.revision());
            ps.setLong(3, window.millis());
            ps.setLong(4, maxInvocations);
            ps.setLong(5, maxTokens);
            setNullableLong(ps, 6, maxCostMicros);
            ps.setLong(7, next.createdAtMs());
            ps.executeUpdate();
          }
          return next;
        });
  }

  @Override
  public Optional<ProjectQuotaPolicy> projectQuota(String projectId) {
    return transaction("project quota read", c -> projectQuota(c, projectId));
  }

  @Override
  public StepRunCreation createStepRun(
      String projectId, String stepRunId, String runId, String modelId) {
    return transaction(
        "step run create",
        c -> {
          long now = now(c);
          int inserted;
          try (PreparedStatement ps = c.prepareStatement(sql.insertStepRun())) {
            ps.setString(1, projectId);
            ps.setString(2, stepRunId);
            ps.setString(3, runId);
            ps.setString(4, modelId);
            ps.setLong(5, now);
            ps.setLong(6, now);
            inserted = ps.executeUpdate();
          }
          StepRun stored =
              stepRun(c, projectId, stepRunId)
                  .orElseThrow(() -> new StoreUnavailableException("step run vanished"));
          return new StepRunCreation(stored, inserted == 1);
        });
  }

  @Override
  public Optional<StepRun> stepRun(String projectId, String stepRunId) {
    return transaction("step run read", c -> stepRun(c, projectId, stepRunId));
  }

  @Override
  public AdmissionOutcome admit(AdmissionRequest request) {
    return transaction(
        "model admission",
        c -> {
          String project = request.projectId();
          long now = now(c);
          ProjectQuotaPolicy quota = projectQuota(c, project).orElse(null);
          WindowRef window = WindowRef.containing(project, quota, now);
          lockWindow(c, window);
          Reservation existing =
              reservation(c, sql.reservationByInvocation(), project, request.invocationId());
          InvocationStart existingStart = start(c, project, request.invocationId());
          if (existing != null || existingStart != null) {
            return new AdmissionOutcome.Existing(existing, existingStart);
          }
          StepRun step = stepRun(c, project, request.stepRunId()).orElse(null);
          ModelInvocationPolicy policy =
              step == null ? null : modelPolicy(c, project, step.modelId()).orElse(null);
          Reservation stepReservation =
              reservation(c, sql.reservationByStepRun(), project, request.stepRunId());
          AdmissionOutcome outcome =
              ModelQuotaRules.admit(
                  request,
                  now,
                  window,
                  step,
                  policy,
                  quota,
                  stepReservation,
                  windowHead(c, window),
                  settledHead(c, window));
          if (outcome instanceof AdmissionOutcome.Admitted admitted) {
            if (!startStepRun(c, request, now)) {
              return new AdmissionOutcome.Rejected(AdmissionOutcome.Reason.STEP_RUN_NOT_READY);
            }
            insertReservation(c, admitted.reservation());
            insertStart(c, admitted.start());
          }
          return outcome;
        });
  }

  @Override
  public CompletionOutcome complete(CompletionRequest request) {
    return transaction(
        "model completion",
        c -> {
          String project = request.projectId();
          long now = now(c);
          Reservation reservation =
              reservation(c, sql.reservationByInvocation(), project, request.invocationId());
          Completion completion = completion(c, project, request.invocationId());
          UsageLedgerEntry entry = ledgerEntry(c, project, request.invocationId());
          Settlement settlement =
              settlement(c, sql.settlementByInvocation(), project, request.invocationId());
          if (completion != null || entry != null || settlement != null) {
            return new CompletionOutcome.Existing(reservation, completion, entry, settlement);
          }
          if (reservation == null) {
            return new CompletionOutcome.Rejected(CompletionOutcome.Reason.NO_RESERVATION);
          }
          if (lockWindow(c, reservation.window())) {
            // Re-read under the lock: a concurrent completion of this invocation may have won.
            if (completion(c, project, request.invocationId()) != null) {
              return new CompletionOutcome.Existing(
                  reservation,
                  completion(c, project, request.invocationId()),
                  ledgerEntry(c, project, request.invocationId()),
                  settlement(c, sql.settlementByInvocation(), project, request.invocationId()));
            }
          }
          lockLedger(c, project);
          CompletionOutcome outcome =
              ModelQuotaRules.complete(
                  request,
                  now,
                  reservation,
                  start(c, project, request.invocationId()),
                  stepRun(c, project, reservation.stepRunId()).orElse(null),
                  settledHead(c, reservation.window()),
                  lastLedgerSeq(c, project) + 1);
          if (outcome instanceof CompletionOutcome.Completed done) {
            insertCompletion(c, done.completion());
            insertLedger(c, done.ledgerEntry());
            // The settlement goes before the StepRun ends: the database refuses the reverse.
            insertSettlement(c, done.settlement());
            endStepRun(c, reservation, request.outcome(), now);
          }
          return outcome;
        });
  }

  @Override
  public WindowUsageReading currentWindowUsage(String projectId) {
    return transaction(
        "window usage read",
        true,
        c -> {
          long now = now(c);
          ProjectQuotaPolicy quota = projectQuota(c, projectId).orElse(null);
          WindowRef window = WindowRef.containing(projectId, quota, now);
          return new WindowUsageReading(
              ModelQuotaRules.usage(window, windowHead(c, window), settledHead(c, window)),
              quota,
              now);
        });
  }

  @Override
  public List<UsageLedgerEntry> ledger(String projectId, long afterSeq, int limit) {
    if (limit < 1 || limit > 501) {
      throw new IllegalArgumentException("limit must be 1..501. Indicates a bug.");
    }
    return transaction(
        "ledger read",
        c -> {
          List<UsageLedgerEntry> entries = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(sql.ledgerPage())) {
            ps.setString(1, projectId);
            ps.setLong(2, afterSeq);
            ps.setInt(3, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                entries.add(mapped("ledger entry", rs, JdbcModelQuotaStore::mapLedger));
              }
            }
          }
          return entries;
        });
  }

  // --- reads ---

  private long now(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.now());
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new StoreUnavailableException("database clock unreadable");
      }
      return rs.getLong(1);
    }
  }

  private Optional<ModelInvocationPolicy> modelPolicy(
      Connection c, String projectId, String modelId) throws SQLException {
    return Optional.ofNullable(
        byId(
            c,
            sql.latestModelPolicy(),
            projectId,
            modelId,
            "model policy",
            rs ->
                new ModelInvocationPolicy(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getLong(3),
                    rs.getLong(4),
                    nullableLong(rs, 5),
                    rs.getLong(6))));
  }

  private Optional<ProjectQuotaPolicy> projectQuota(Connection c, String projectId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.latestQuotaPolicy())) {
      ps.setString(1, projectId);
      return Optional.ofNullable(
          one(
              ps,
              "quota policy",
              rs ->
                  new ProjectQuotaPolicy(
                      rs.getString(1),
                      rs.getLong(2),
                      QuotaWindow.ofMillis(rs.getLong(3)),
                      rs.getLong(4),
                      rs.getLong(5),
                      nullableLong(rs, 6),
                      rs.getLong(7))));
    }
  }

  private Optional<StepRun> stepRun(Connection c, String projectId, String stepRunId)
      throws SQLException {
    return Optional.ofNullable(
        byId(
            c,
            sql.stepRun(),
            projectId,
            stepRunId,
            "step run",
            rs ->
                new StepRun(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4),
                    StepRunState.fromWire(rs.getString(5)),
                    rs.getString(6),
                    rs.getLong(7),
                    rs.getLong(8))));
  }

  private static Reservation reservation(Connection c, String query, String projectId, String id)
      throws SQLException {
    return byId(c, query, projectId, id, "reservation", JdbcModelQuotaStore::mapReservation);
  }

  private static Settlement settlement(Connection c, String query, String projectId, String id)
      throws SQLException {
    return byId(c, query, projectId, id, "settlement", JdbcModelQuotaStore::mapSettlement);
  }

  private Reservation windowHead(Connection c, WindowRef w) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.windowHeadReservation())) {
      bindWindow(ps, w);
      return one(ps, "reservation", JdbcModelQuotaStore::mapReservation);
    }
  }

  private Settlement settledHead(Connection c, WindowRef w) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.windowHeadSettlement())) {
      bindWindow(ps, w);
      return one(ps, "settlement", JdbcModelQuotaStore::mapSettlement);
    }
  }

  private static void bindWindow(PreparedStatement ps, WindowRef w) throws SQLException {
    ps.setString(1, w.projectId());
    ps.setLong(2, w.windowStartMs());
    ps.setLong(3, w.windowMs());
  }

  private InvocationStart start(Connection c, String projectId, String invocationId)
      throws SQLException {
    return byId(
        c,
        sql.startByInvocation(),
        projectId,
        invocationId,
        "start",
        rs ->
            new InvocationStart(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                new Sha256Digest(rs.getString(6)),
                rs.getLong(7),
                new Sha256Digest(rs.getString(8))));
  }

  private Completion completion(Connection c, String projectId, String invocationId)
      throws SQLException {
    return byId(
        c,
        sql.completionByInvocation(),
        projectId,
        invocationId,
        "completion",
        rs ->
            new Completion(
                rs.getString(1),
                rs.getString(2),
                rs.getString(3),
                InvocationOutcome.fromWire(rs.getString(4)),
                usage(rs, 5),
                nullableLong(rs, 8),
                rs.getLong(9),
                new Sha256Digest(rs.getString(10))));
  }

  private UsageLedgerEntry ledgerEntry(Connection c, String projectId, String invocationId)
      throws SQLException {
    return byId(
        c,
        sql.ledgerByInvocation(),
        projectId,
        invocationId,
        "ledger entry",
        JdbcModelQuotaStore::mapLedger);
  }

  private long lastLedgerSeq(Connection c, String projectId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.lastLedgerSeq())) {
      ps.setString(1, projectId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /** The row of {@code query} for (project, id), or null. */
  private static <T> T byId(
      Connection c, String query, String projectId, String id, String what, RowMapper<T> mapper)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query)) {
      ps.setString(1, projectId);
      ps.setString(2, id);
      return one(ps, what, mapper);
    }
  }

  /** The first row of the bound statement {@code ps}, or null. */
  private static <T> T one(PreparedStatement ps, String what, RowMapper<T> mapper)
      throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? mapped(what, rs, mapper) : null;
    }
  }

  // --- row mapping ---

  private static Reservation mapReservation(ResultSet rs) throws SQLException {
    return new Reservation(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getLong(6),
        rs.getLong(7),
        rs.getLong(8),
        rs.getLong(9),
        new WindowBudget(nullableLong(rs, 10), nullableLong(rs, 11), nullableLong(rs, 12)),
        rs.getLong(13),
        nullableLong(rs, 14),
        rs.getLong(15),
        rs.getLong(16),
        rs.getLong(17),
        rs.getLong(18),
        rs.getLong(19),
        new Sha256Digest(rs.getString(20)));
  }

  private static Settlement mapSettlement(ResultSet rs) throws SQLException {
    return new Settlement(
        rs.getString(1),
        rs.getString(2),
        rs.getLong(3),
        rs.getLong(4),
        new Sha256Digest(rs.getString(5)),
        new Sha256Digest(rs.getString(6)),
        rs.getLong(7),
        nullableLong(rs, 8),
        rs.getLong(9),
        rs.getLong(10),
        rs.getLong(11),
        rs.getLong(12),
        rs.getLong(13),
        rs.getLong(14),
        new Sha256Digest(rs.getString(15)));
  }

  private static UsageLedgerEntry mapLedger(ResultSet rs) throws SQLException {
    return new UsageLedgerEntry(
        rs.getString(1),
        rs.getLong(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        InvocationOutcome.fromWire(rs.getString(7)),
        usage(rs, 8),
        nullableLong(rs, 11),
        new Sha256Digest(rs.getString(12)),
        rs.getLong(13),
        new Sha256Digest(rs.getString(14)));
  }

  /** Usage from three columns starting at {@code first}: all null (unknown) or all set. */
  private static TokenUsage usage(ResultSet rs, int first) throws SQLException {
    Long input = nullableLong(rs, first);
    Long output = nullableLong(rs, first + 1);
    Long total = nullableLong(rs, first + 2);
    if (input == null && output == null && total == null) {
      return null;
    }
    if (input == null || output == null || total == null) {
      throw new IllegalStateException("partial token usage");
    }
    return new TokenUsage(input, output, total);
  }

  @FunctionalInterface
  private interface RowMapper<T> {
    T map(ResultSet rs) throws SQLException;
  }

  /** A row the domain refuses to represent is corrupt: the store cannot answer (fail closed). */
  private static <T> T mapped(String what, ResultSet rs, RowMapper<T> mapper) throws SQLException {
    try {
      return mapper.map(rs);
    } catch (ValidationException | IllegalStateException | IllegalArgumentException e) {
      throw new StoreUnavailableException("corrupt " + what + " row", e);
    }
  }

  // --- writes ---

  private boolean startStepRun(Connection c, AdmissionRequest r, long now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.startStepRun())) {
      ps.setString(1, r.invocationId());
      ps.setLong(2, now);
      ps.setString(3, r.projectId());
      ps.setString(4, r.stepRunId());
      return ps.executeUpdate() == 1;
    }
  }

  private void endStepRun(Connection c, Reservation r, InvocationOutcome outcome, long now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.endStepRun())) {
      ps.setString(1, outcome.terminalState().wireName());
      ps.setLong(2, now);
      ps.setString(3, r.projectId());
      ps.setString(4, r.stepRunId());
      ps.setString(5, r.invocationId());
      if (ps.executeUpdate() != 1) {
        // Checked as running under this invocation in the same transaction. Indicates a bug.
        throw new IllegalStateException("step run changed inside the completion transaction");
      }
    }
  }

  private void insertReservation(Connection c, Reservation r) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.insertReservation())) {
      ps.setString(1, r.projectId());
      ps.setString(2, r.invocationId());
      ps.setString(3, r.stepRunId());
      ps.setString(4, r.runId());
      ps.setString(5, r.modelId());
      ps.setLong(6, r.modelPolicyRevision());
      ps.setLong(7, r.quotaPolicyRevision());
      ps.setLong(8, r.windowStartMs());
      ps.setLong(9, r.windowMs());
      setNullableLong(ps, 10, r.budget().maxInvocations());
      setNullableLong(ps, 11, r.budget().maxTokens());
      setNullableLong(ps, 12, r.budget().maxCostMicros());
      ps.setLong(13, r.reservedTokens());
      setNullableLong(ps, 14, r.reservedCostMicros());
      ps.setLong(15, r.windowSeq());
      ps.setLong(16, r.windowInvocations());
      ps.setLong(17, r.windowReservedTokens());
      ps.setLong(18, r.windowReservedCostMicros());
      ps.setLong(19, r.reservedAtMs());
      ps.setString(20, r.digest().value());
      ps.executeUpdate();
    }
  }

  private void insertStart(Connection c, InvocationStart s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.insertStart())) {
      ps.setString(1, s.projectId());
      ps.setString(2, s.invocationId());
      ps.setString(3, s.stepRunId());
      ps.setString(4, s.runId());
      ps.setString(5, s.modelId());
      ps.setString(6, s.reservationDigest().value());
      ps.setLong(7, s.startedAtMs());
      ps.setString(8, s.digest().value());
      ps.executeUpdate();
    }
  }

  private void insertCompletion(Connection c, Completion x) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.insertCompletion())) {
      ps.setString(1, x.projectId());
      ps.setString(2, x.invocationId());
      ps.setString(3, x.stepRunId());
      ps.setString(4, x.outcome().wireName());
      bindUsage(ps, 5, x.usage());
      setNullableLong(ps, 8, x.costMicros());
      ps.setLong(9, x.completedAtMs());
      ps.setString(10, x.digest().value());
      ps.executeUpdate();
    }
  }

  private void insertLedger(Connection c, UsageLedgerEntry e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.insertLedger())) {
      ps.setString(1, e.projectId());
      ps.setLong(2, e.ledgerSeq());
      ps.setString(3, e.invocationId());
      ps.setString(4, e.stepRunId());
      ps.setString(5, e.runId());
      ps.setString(6, e.modelId());
      ps.setString(7, e.outcome().wireName());
      bindUsage(ps, 8, e.usage());
      setNullableLong(ps, 11, e.costMicros());
      ps.setString(12, e.completionDigest().value());
      ps.setLong(13, e.recordedAtMs());
      ps.setString(14, e.digest().value());
      ps.executeUpdate();
    }
  }

  private void insertSettlement(Connection c, Settlement s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.insertSettlement())) {
      ps.setString(1, s.projectId());
      ps.setString(2, s.invocationId());
      ps.setLong(3, s.windowStartMs());
      ps.setLong(4, s.windowMs());
      ps.setString(5, s.reservationDigest().value());
      ps.setString(6, s.completionDigest().value());
      ps.setLong(7, s.settledTokens());
      setNullableLong(ps, 8, s.settledCostMicros());
      ps.setLong(9, s.releasedTokens());
      ps.setLong(10, s.releasedCostMicros());
      ps.setLong(11, s.windowSettleSeq());
      ps.setLong(12, s.windowReleasedTokens());
      ps.setLong(13, s.windowReleasedCostMicros());
      ps.setLong(14, s.settledAtMs());
      ps.setString(15, s.digest().value());
      ps.executeUpdate();
    }
  }

  private static void bindUsage(PreparedStatement ps, int first, TokenUsage u) throws SQLException {
    setNullableLong(ps, first, u == null ? null : u.inputTokens());
    setNullableLong(ps, first + 1, u == null ? null : u.outputTokens());
    setNullableLong(ps, first + 2, u == null ? null : u.totalTokens());
  }

  private static void setNullableLong(PreparedStatement ps, int index, Long value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, value);
    }
  }

  private static Long nullableLong(ResultSet rs, int index) throws SQLException {
    long value = rs.getLong(index);
    return rs.wasNull() ? null : value;
  }
}
