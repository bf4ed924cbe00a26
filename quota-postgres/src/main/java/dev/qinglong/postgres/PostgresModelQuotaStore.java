package dev.qinglong.postgres;

import dev.qinglong.core.ai.AdmissionOutcome;
import dev.qinglong.core.ai.AdmissionRequest;
import dev.qinglong.core.ai.AdvisoryLockKeys;
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
import dev.qinglong.jdbc.JdbcStoreException;
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
 * {@link ModelQuotaStore} on PostgreSQL, connected as {@code ql3_runtime} (SELECT, INSERT on the
 * receipts; UPDATE only on StepRuns).
 *
 * <p>Admission and completion are each one READ COMMITTED transaction that takes {@code
 * pg_advisory_xact_lock} on {@link AdvisoryLockKeys#window} of the window concerned before reading
 * anything the decision depends on. Every statement after the lock sees everything the previous
 * holder committed (READ COMMITTED takes a fresh snapshot per statement; REPEATABLE READ would pin
 * a snapshot older than the lock). Completion then takes {@link AdvisoryLockKeys#ledger} for the
 * Project's ledger sequence. The clock is {@code clock_timestamp()}, read once per transaction.
 *
 * <p>Writes that race outside a shared lock (a StepRun admitted in two windows at a boundary, two
 * policy writers) meet a unique constraint; the transaction is then retried and sees the winner.
 */
public final class PostgresModelQuotaStore implements ModelQuotaStore {
  private final DataSource dataSource;

  public PostgresModelQuotaStore(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource);
  }

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /** A transaction that met a unique constraint is retried this often. */
  private static final int ATTEMPTS = 3;

  /**
   * Runs {@code work} in one READ COMMITTED transaction, retried when a unique constraint shows
   * that a concurrent writer won. Paths that decide "no" have written nothing, so committing them
   * is the same as rolling back.
   */
  private <T> T transaction(String operation, Work<T> work) {
    return transaction(operation, false, work);
  }

  /** As above; {@code snapshot}: REPEATABLE READ, for reads that must see one consistent state. */
  private <T> T transaction(String operation, boolean snapshot, Work<T> work) {
    SQLException last = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try (Connection c = dataSource.getConnection()) {
        if (snapshot) {
          c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
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
          if (snapshot) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
          }
        }
      } catch (SQLException e) {
        if (!"23505".equals(e.getSQLState())) {
          throw JdbcStoreException.unavailable("postgres", operation, e);
        }
        last = e;
      }
    }
    throw JdbcStoreException.unavailable("postgres", operation + " (still contended)", last);
  }

  private static void lock(Connection c, long key) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.ADVISORY_XACT_LOCK)) {
      ps.setLong(1, key);
      ps.executeQuery().close();
    }
  }

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
          try (PreparedStatement ps = c.prepareStatement(PostgresSql.INSERT_MODEL_POLICY)) {
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
          try (PreparedStatement ps = c.prepareStatement(PostgresSql.INSERT_QUOTA_POLICY)) {
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
          try (PreparedStatement ps = c.prepareStatement(PostgresSql.INSERT_STEP_RUN)) {
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
          lock(c, AdvisoryLockKeys.window(window));
          Reservation existing =
              reservation(
                  c, PostgresSql.RESERVATION_BY_INVOCATION, project, request.invocationId());
          InvocationStart existingStart = start(c, project, request.invocationId());
          if (existing != null || existingStart != null) {
            return new AdmissionOutcome.Existing(existing, existingStart);
          }
          StepRun step = stepRun(c, project, request.stepRunId()).orElse(null);
          ModelInvocationPolicy policy =
              step == null ? null : modelPolicy(c, project, step.modelId()).orElse(null);
          Reservation stepReservation =
              reservation(c, PostgresSql.RESERVATION_BY_STEP_RUN, project, request.stepRunId());
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
              reservation(
                  c, PostgresSql.RESERVATION_BY_INVOCATION, project, request.invocationId());
          Completion completion = completion(c, project, request.invocationId());
          UsageLedgerEntry entry = ledgerEntry(c, project, request.invocationId());
          Settlement settlement =
              settlement(c, PostgresSql.SETTLEMENT_BY_INVOCATION, project, request.invocationId());
          if (completion != null || entry != null || settlement != null) {
            return new CompletionOutcome.Existing(reservation, completion, entry, settlement);
          }
          if (reservation == null) {
            return new CompletionOutcome.Rejected(CompletionOutcome.Reason.NO_RESERVATION);
          }
          lock(c, AdvisoryLockKeys.window(reservation.window()));
          // Re-read under the lock: a concurrent completion of this invocation may have won.
          if (completion(c, project, request.invocationId()) != null) {
            return new CompletionOutcome.Existing(
                reservation,
                completion(c, project, request.invocationId()),
                ledgerEntry(c, project, request.invocationId()),
                settlement(
                    c, PostgresSql.SETTLEMENT_BY_INVOCATION, project, request.invocationId()));
          }
          lock(c, AdvisoryLockKeys.ledger(project));
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
          try (PreparedStatement ps = c.prepareStatement(PostgresSql.LEDGER_PAGE)) {
            ps.setString(1, projectId);
            ps.setLong(2, afterSeq);
            ps.setInt(3, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                entries.add(mapped("ledger entry", () -> mapLedger(rs)));
              }
            }
          }
          return entries;
        });
  }

  // --- reads ---

  private static long now(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.NOW);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new StoreUnavailableException("database clock unreadable");
      }
      return rs.getLong(1);
    }
  }

  private static Optional<ModelInvocationPolicy> modelPolicy(
      Connection c, String projectId, String modelId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.LATEST_MODEL_POLICY)) {
      ps.setString(1, projectId);
      ps.setString(2, modelId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            mapped(
                "model policy",
                () ->
                    new ModelInvocationPolicy(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        nullableLong(rs, 5),
                        rs.getLong(6))));
      }
    }
  }

  private static Optional<ProjectQuotaPolicy> projectQuota(Connection c, String projectId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.LATEST_QUOTA_POLICY)) {
      ps.setString(1, projectId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            mapped(
                "quota policy",
                () ->
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
  }

  private static Optional<StepRun> stepRun(Connection c, String projectId, String stepRunId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.STEP_RUN)) {
      ps.setString(1, projectId);
      ps.setString(2, stepRunId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            mapped(
                "step run",
                () ->
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
    }
  }

  private static Reservation reservation(Connection c, String sql, String projectId, String id)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, projectId);
      ps.setString(2, id);
      return oneReservation(ps);
    }
  }

  private static Reservation windowHead(Connection c, WindowRef w) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.WINDOW_HEAD_RESERVATION)) {
      bindWindow(ps, w);
      return oneReservation(ps);
    }
  }

  private static Settlement settledHead(Connection c, WindowRef w) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.WINDOW_HEAD_SETTLEMENT)) {
      bindWindow(ps, w);
      return oneSettlement(ps);
    }
  }

  private static Settlement settlement(Connection c, String sql, String projectId, String id)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, projectId);
      ps.setString(2, id);
      return oneSettlement(ps);
    }
  }

  private static void bindWindow(PreparedStatement ps, WindowRef w) throws SQLException {
    ps.setString(1, w.projectId());
    ps.setLong(2, w.windowStartMs());
    ps.setLong(3, w.windowMs());
  }

  private static Reservation oneReservation(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      return mapped(
          "reservation",
          () ->
              new Reservation(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getLong(6),
                  rs.getLong(7),
                  rs.getLong(8),
                  rs.getLong(9),
                  new WindowBudget(
                      nullableLong(rs, 10), nullableLong(rs, 11), nullableLong(rs, 12)),
                  rs.getLong(13),
                  nullableLong(rs, 14),
                  rs.getLong(15),
                  rs.getLong(16),
                  rs.getLong(17),
                  rs.getLong(18),
                  rs.getLong(19),
                  new Sha256Digest(rs.getString(20))));
    }
  }

  private static Settlement oneSettlement(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      return mapped(
          "settlement",
          () ->
              new Settlement(
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
                  new Sha256Digest(rs.getString(15))));
    }
  }

  private static InvocationStart start(Connection c, String projectId, String invocationId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.START_BY_INVOCATION)) {
      ps.setString(1, projectId);
      ps.setString(2, invocationId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return mapped(
            "start",
            () ->
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
    }
  }

  private static Completion completion(Connection c, String projectId, String invocationId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.COMPLETION_BY_INVOCATION)) {
      ps.setString(1, projectId);
      ps.setString(2, invocationId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return mapped(
            "completion",
            () ->
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
    }
  }

  private static UsageLedgerEntry ledgerEntry(Connection c, String projectId, String invocationId)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.LEDGER_BY_INVOCATION)) {
      ps.setString(1, projectId);
      ps.setString(2, invocationId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? mapped("ledger entry", () -> mapLedger(rs)) : null;
      }
    }
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

  private static long lastLedgerSeq(Connection c, String projectId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.LAST_LEDGER_SEQ)) {
      ps.setString(1, projectId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
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

  // --- writes ---

  private static boolean startStepRun(Connection c, AdmissionRequest r, long now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.START_STEP_RUN)) {
      ps.setString(1, r.invocationId());
      ps.setLong(2, now);
      ps.setString(3, r.projectId());
      ps.setString(4, r.stepRunId());
      return ps.executeUpdate() == 1;
    }
  }

  private static void endStepRun(Connection c, Reservation r, InvocationOutcome outcome, long now)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.END_STEP_RUN)) {
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

  private static void insertReservation(Connection c, Reservation r) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.INSERT_RESERVATION)) {
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

  private static void insertStart(Connection c, InvocationStart s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.INSERT_START)) {
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

  private static void insertCompletion(Connection c, Completion x) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.INSERT_COMPLETION)) {
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

  private static void insertLedger(Connection c, UsageLedgerEntry e) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.INSERT_LEDGER)) {
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

  private static void insertSettlement(Connection c, Settlement s) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PostgresSql.INSERT_SETTLEMENT)) {
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

  @FunctionalInterface
  private interface RowMapper<T> {
    T map() throws SQLException;
  }

  /** A row the domain refuses to represent is corrupt: the store cannot answer (fail closed). */
  private static <T> T mapped(String what, RowMapper<T> mapper) throws SQLException {
    try {
      return mapper.map();
    } catch (ValidationException | IllegalStateException | IllegalArgumentException e) {
      throw new StoreUnavailableException("corrupt " + what + " row", e);
    }
  }
}
