package dev.qinglong.app.modelquota;

import dev.qinglong.core.modelquota.ModelQuota;
import dev.qinglong.core.modelquota.RecoverySweep;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recovery sweep of the model-invocation quota
 * (docs/design.md#atomic-admission-and-completion): every {@code interval}, StepRuns {@code
 * running} for at least {@code after} by the database clock are completed as {@code unknown}
 * through the quota-aware completion, so their whole reservation stays in its window. It runs in
 * every process that has the model-quota store (roles {@code all}/{@code writer} with AI on);
 * several processes sweeping at once is safe, since each completion is one transaction serialised
 * on the reservation's window: exactly one completion of an invocation commits, the others replay
 * or lose (nothing written). {@code after = 0}: no sweep. One daemon thread; a failed sweep is
 * logged and retried at the next tick. Each StepRun a sweep completes as {@code unknown} counts in
 * {@code qinglong_model_step_runs_recovered_total}.
 */
public final class StaleStepRunRecovery implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StaleStepRunRecovery.class);

  /** StepRuns read per page, and pages per sweep (at most 10 000 recoveries per tick). */
  static final int PAGE = 100;

  static final int PAGES = 100;

  /** StepRuns the sweep completed as {@code unknown}. */
  static final String RECOVERED_METER = "qinglong.model.step.runs.recovered";

  private final ModelQuota quota;
  private final Duration after;
  private final Counter recovered;
  private final ScheduledExecutorService scheduler;

  StaleStepRunRecovery(
      ModelQuota quota, Duration after, Duration interval, MeterRegistry registry) {
    this.quota = quota;
    this.after = after;
    this.recovered =
        Counter.builder(RECOVERED_METER)
            .description("StepRuns left running that the recovery sweep completed as unknown")
            .register(registry);
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "qinglong-step-run-recovery");
              t.setDaemon(true);
              return t;
            });
    if (!after.isZero()) {
      long period = interval.toMillis();
      scheduler.scheduleWithFixedDelay(this::sweepLogged, period, period, TimeUnit.MILLISECONDS);
    }
  }

  /** One sweep now (also what the schedule runs). */
  RecoverySweep sweep() {
    RecoverySweep r = quota.recoverStale(after, PAGE, PAGES);
    recovered.increment(r.recovered());
    return r;
  }

  private void sweepLogged() {
    try {
      RecoverySweep r = sweep();
      if (r.examined() > 0) {
        log.info(
            "model.step-run.recovery examined={} recovered={} already_completed={} conflicts={}",
            r.examined(),
            r.recovered(),
            r.alreadyCompleted(),
            r.conflicts());
      }
    } catch (RuntimeException e) {
      log.warn("model.step-run.recovery failed: {}", e.toString());
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
  }
}
