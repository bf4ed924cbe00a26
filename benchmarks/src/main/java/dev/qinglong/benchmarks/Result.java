package dev.qinglong.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one workload measured in its timed phase.
 *
 * @param ratePerSecond calls per second (downloads: bytes per second, see {@code unit})
 * @param commitsPerCall {@code xact_commit} delta of the workload's database per call, or null
 * @param statementsPerCall {@code pg_stat_statements} calls per call, or null when not loaded
 * @param appCpuMsPerCall CPU time of the app process per call in the timed phase (ms), or null when
 *     the calls run in the harness
 * @param machineCpuMsPerCall CPU time of the whole machine (every process: harness, app, database
 *     and anything else running) per call in the timed phase (ms), or null where the OS tells none
 * @param appJitMsPerCall of {@code appCpuMsPerCall}, what the app's JIT compiler threads used (ms),
 *     or null when not known
 * @param postgresCpuMsPerCall CPU of every PostgreSQL process of the machine per call (ms), or null
 *     when not known (0 when the server runs elsewhere)
 * @param harnessCpuMsPerCall CPU of the harness process (its client threads) per call (ms)
 * @param appLogBytes bytes the app process wrote to its log in the timed phase, or null when the
 *     calls run in the harness
 * @param dbExecMsPerCall PostgreSQL's execution time per call, every statement of the workload's
 *     database ({@code pg_stat_statements.total_exec_time}), or null when not loaded
 * @param topStatements the statements that took the most of that time, with their share per call
 * @param error the first unexpected failure (the call counted as outcome {@code error}), or the
 *     reason the workload did not run
 */
record Result(
    String scenario,
    String system,
    int threads,
    double seconds,
    long calls,
    String unit,
    double ratePerSecond,
    double p50Ms,
    double p99Ms,
    double maxMs,
    Map<String, Long> outcomes,
    Double commitsPerCall,
    Double statementsPerCall,
    Double appCpuMsPerCall,
    Double machineCpuMsPerCall,
    Double appJitMsPerCall,
    Double postgresCpuMsPerCall,
    Double harnessCpuMsPerCall,
    Long appLogBytes,
    Double dbExecMsPerCall,
    List<Map<String, Object>> topStatements,
    Map<String, Object> notes,
    String error) {

  /**
   * What the timed phase cost outside the harness's clock: nanoseconds of the app's and of the
   * machine's CPU, bytes of the app's log; each -1 when not known.
   */
  record Cpu(long appNanos, long machineNanos, long appLogBytes, MachineCpu.Split split) {}

  static Result of(
      Workload w,
      double seconds,
      Histogram h,
      Map<String, Long> outcomes,
      FreshDatabase.Counters delta,
      Cpu cpu,
      Throwable firstError) {
    long calls = h.getTotalCount();
    double perCall = Math.max(1, calls);
    return new Result(
        w.scenario(),
        w.system(),
        w.threads(),
        seconds,
        calls,
        w.unit(),
        calls * (double) w.unitsPerCall() / seconds,
        h.getValueAtPercentile(50) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0,
        h.getMaxValue() / 1000.0,
        outcomes,
        delta == null ? null : delta.commits() / perCall,
        delta == null || delta.statements() < 0 ? null : delta.statements() / perCall,
        cpu.appNanos() < 0 ? null : cpu.appNanos() / 1e6 / perCall,
        cpu.machineNanos() < 0 ? null : cpu.machineNanos() / 1e6 / perCall,
        msPerCall(cpu.split().appJitNanos(), perCall),
        msPerCall(cpu.split().postgresNanos(), perCall),
        msPerCall(cpu.split().harnessNanos(), perCall),
        cpu.appLogBytes() < 0 ? null : cpu.appLogBytes(),
        delta == null || delta.statements() < 0 ? null : delta.execMsPerCall(perCall),
        delta == null || delta.statements() < 0 ? List.of() : delta.top(6, perCall),
        w.notes(),
        firstError == null ? null : firstError.toString());
  }

  private static Double msPerCall(long nanos, double perCall) {
    return nanos < 0 ? null : nanos / 1e6 / perCall;
  }

  static Result failed(Workload w, Throwable e) {
    return new Result(
        w.scenario(),
        w.system(),
        w.threads(),
        0,
        0,
        w.unit(),
        0,
        0,
        0,
        0,
        Map.of(),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        List.of(),
        w.notes(),
        e.toString());
  }

  boolean ok() {
    return calls > 0 && error == null;
  }

  String summary() {
    return String.format(
        Locale.ROOT,
        "%s %.0f %s/s p50 %.2f ms p99 %.2f ms outcomes %s commits/call %s app CPU ms/call %s"
            + " machine CPU ms/call %s app log bytes %s%s",
        ok() ? "ok" : "NOT OK",
        ratePerSecond,
        unit,
        p50Ms,
        p99Ms,
        outcomes,
        commitsPerCall == null ? "-" : String.format(Locale.ROOT, "%.2f", commitsPerCall),
        appCpuMsPerCall == null ? "-" : String.format(Locale.ROOT, "%.2f", appCpuMsPerCall),
        machineCpuMsPerCall == null ? "-" : String.format(Locale.ROOT, "%.2f", machineCpuMsPerCall),
        appLogBytes == null ? "-" : appLogBytes,
        error == null ? "" : " error " + error);
  }
}
