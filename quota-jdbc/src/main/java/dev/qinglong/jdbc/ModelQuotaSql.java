package dev.qinglong.jdbc;

import java.util.Objects;

/**
 * A dialect's statements for {@link JdbcModelQuotaStore}. Parameter order is fixed by the store.
 * Queries return rows of these shapes, columns in this order:
 *
 * <ul>
 *   <li><b>model policy</b> (6): project, model, revision, max total tokens, max cost micros
 *       (nullable), created at
 *   <li><b>quota policy</b> (7): project, revision, window ms, max invocations, max tokens, max
 *       cost micros (nullable), created at
 *   <li><b>step run</b> (8): project, step run, run, model, state, invocation (nullable), created
 *       at, updated at
 *   <li><b>reservation</b> (20): project, invocation, step run, run, model, model policy revision,
 *       quota policy revision, window start ms, window ms, budget max invocations, budget max
 *       tokens, budget max cost micros (the three budgets nullable), reserved tokens, reserved cost
 *       micros (nullable), window seq, window invocations, window reserved tokens, window reserved
 *       cost micros, reserved at, digest
 *   <li><b>start</b> (8): project, invocation, step run, run, model, reservation digest, started
 *       at, digest
 *   <li><b>completion</b> (10): project, invocation, step run, outcome, input tokens, output
 *       tokens, total tokens (the three tokens all null or all set), cost micros (nullable),
 *       completed at, digest
 *   <li><b>ledger entry</b> (14): project, ledger seq, invocation, step run, run, model, outcome,
 *       input tokens, output tokens, total tokens (all null or all set), cost micros (nullable),
 *       completion digest, recorded at, digest
 *   <li><b>settlement</b> (15): project, invocation, window start ms, window ms, reservation
 *       digest, completion digest, settled tokens, settled cost micros (nullable), released tokens,
 *       released cost micros, window settle seq, window released tokens, window released cost
 *       micros, settled at, digest
 * </ul>
 *
 * Inserts take the same columns in the same order as parameters. Times are epoch milliseconds.
 *
 * @param now no parameters; one row, one column: the database clock
 * @param latestModelPolicy project, model; the model policy of the highest revision, if any
 * @param insertModelPolicy the 6 model policy columns
 * @param latestQuotaPolicy project; the quota policy of the highest revision, if any
 * @param insertQuotaPolicy the 7 quota policy columns
 * @param insertStepRun project, step run, run, model, created at, updated at; state {@code ready},
 *     no invocation; inserts nothing when the step run exists ({@code ON CONFLICT (project_id,
 *     step_run_id) DO NOTHING})
 * @param stepRun project, step run; the step run, if any
 * @param startStepRun invocation, now, project, step run; {@code ready → running} binding the
 *     invocation, updates only a {@code ready} step run
 * @param endStepRun terminal state, now, project, step run, invocation; {@code running →} terminal,
 *     updates only a step run running under that invocation
 * @param reservationByInvocation project, invocation; the reservation, if any
 * @param reservationByStepRun project, step run; the step run's reservation, if any
 * @param windowHeadReservation project, window start ms, window ms; the window's reservation of the
 *     highest window seq, if any (one seek down the unique index)
 * @param insertReservation the 20 reservation columns
 * @param startByInvocation project, invocation; the start, if any
 * @param insertStart the 8 start columns
 * @param completionByInvocation project, invocation; the completion, if any
 * @param insertCompletion the 10 completion columns
 * @param ledgerByInvocation project, invocation; the ledger entry, if any
 * @param ledgerPage project, after seq, limit; ledger entries with a greater seq, ascending
 * @param lastLedgerSeq project; one column, the highest ledger seq, no row when the ledger is empty
 * @param insertLedger the 14 ledger entry columns
 * @param settlementByInvocation project, invocation; the settlement, if any
 * @param windowHeadSettlement project, window start ms, window ms; the window's settlement of the
 *     highest window settle seq, if any (one seek down the unique index)
 * @param insertSettlement the 15 settlement columns
 */
public record ModelQuotaSql(
    String now,
    String latestModelPolicy,
    String insertModelPolicy,
    String latestQuotaPolicy,
    String insertQuotaPolicy,
    String insertStepRun,
    String stepRun,
    String startStepRun,
    String endStepRun,
    String reservationByInvocation,
    String reservationByStepRun,
    String windowHeadReservation,
    String insertReservation,
    String startByInvocation,
    String insertStart,
    String completionByInvocation,
    String insertCompletion,
    String ledgerByInvocation,
    String ledgerPage,
    String lastLedgerSeq,
    String insertLedger,
    String settlementByInvocation,
    String windowHeadSettlement,
    String insertSettlement) {
  public ModelQuotaSql {
    Objects.requireNonNull(now);
    Objects.requireNonNull(latestModelPolicy);
    Objects.requireNonNull(insertModelPolicy);
    Objects.requireNonNull(latestQuotaPolicy);
    Objects.requireNonNull(insertQuotaPolicy);
    Objects.requireNonNull(insertStepRun);
    Objects.requireNonNull(stepRun);
    Objects.requireNonNull(startStepRun);
    Objects.requireNonNull(endStepRun);
    Objects.requireNonNull(reservationByInvocation);
    Objects.requireNonNull(reservationByStepRun);
    Objects.requireNonNull(windowHeadReservation);
    Objects.requireNonNull(insertReservation);
    Objects.requireNonNull(startByInvocation);
    Objects.requireNonNull(insertStart);
    Objects.requireNonNull(completionByInvocation);
    Objects.requireNonNull(insertCompletion);
    Objects.requireNonNull(ledgerByInvocation);
    Objects.requireNonNull(ledgerPage);
    Objects.requireNonNull(lastLedgerSeq);
    Objects.requireNonNull(insertLedger);
    Objects.requireNonNull(settlementByInvocation);
    Objects.requireNonNull(windowHeadSettlement);
    Objects.requireNonNull(insertSettlement);
  }
}
