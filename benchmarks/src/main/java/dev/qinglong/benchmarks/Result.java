package dev.qinglong.benchmarks;

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
 * @param appLogBytes bytes the app process wrote to its log in the timed phase, or null when the
 *     calls run in the harness
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
    Long appLogBytes,
    Map<String, Object> notes,
    String error) {

  /**
   * What the timed phase cost outside the harness's clock: nanoseconds of the app's and of the
   * machine's CPU, bytes of the app's log; each -1 when not known.
   */
  record Cpu(long appNanos, long machineNanos, long appLogBytes) {}

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
        cpu.appLogBytes() < 0 ? null : cpu.appLogBytes(),
        w.notes(),
        firstError == null ? null : firstError.toString());
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
