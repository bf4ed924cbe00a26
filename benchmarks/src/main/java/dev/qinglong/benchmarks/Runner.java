package dev.qinglong.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Runs one {@link Workload}: set-up, warm-up, timed phase, close; the same measurement for every
 * workload. Latencies go into an HdrHistogram {@link Recorder} (microseconds, 3 significant
 * digits); the warm-up's interval is discarded. Each client thread keeps its own call counter, so
 * {@code call(thread, n)} never repeats an {@code n} for a thread.
 */
final class Runner {
  private static final long MAX_LATENCY_MICROS = 600_000_000L;

  private Runner() {}

  static Result run(Workload workload, Workload.Mode mode) throws Exception {
    String id = workload.scenario() + " / " + workload.system();
    System.err.printf("%n== %s (%d threads)%n", id, workload.threads());
    long setUpStart = System.nanoTime();
    try (workload) {
      workload.setUp(mode);
      System.err.printf("   set-up %.1f s%n", (System.nanoTime() - setUpStart) / 1e9);
      Workload.Phases phases = workload.phases(mode);
      int threads = workload.threads();
      long[] next = new long[threads];
      Recorder recorder = new Recorder(MAX_LATENCY_MICROS, 3);
      Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
      AtomicReference<Throwable> firstError = new AtomicReference<>();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        phase(
            workload,
            pool,
            next,
            phases.warmupSeconds(),
            phases.warmupCalls(),
            recorder,
            new ConcurrentHashMap<>(),
            firstError);
        recorder.getIntervalHistogram(); // drop the warm-up
        FreshDatabase db = workload.database();
        if (db != null) {
          db.analyze();
        }
        FreshDatabase.Counters before = db == null ? null : db.counters();
        long cpuBefore = workload.appCpuNanos();
        long logBefore = workload.appLogBytes();
        long machineBefore = MachineCpu.busyNanos();
        MachineCpu.Split splitBefore = MachineCpu.Split.now(workload.appPid());
        long t0 = System.nanoTime();
        phase(
            workload,
            pool,
            next,
            phases.timedSeconds(),
            phases.timedCalls(),
            recorder,
            outcomes,
            firstError);
        double seconds = (System.nanoTime() - t0) / 1e9;
        FreshDatabase.Counters delta = db == null ? null : db.counters().minus(before);
        long cpuAfter = workload.appCpuNanos();
        long machineAfter = MachineCpu.busyNanos();
        MachineCpu.Split split = MachineCpu.Split.now(workload.appPid()).minus(splitBefore);
        long logAfter = workload.appLogBytes();
        long appCpuNanos = cpuBefore < 0 || cpuAfter < 0 ? -1 : cpuAfter - cpuBefore;
        long machineCpuNanos =
            machineBefore < 0 || machineAfter < 0 ? -1 : machineAfter - machineBefore;
        long logBytes = logBefore < 0 || logAfter < 0 ? -1 : logAfter - logBefore;
        Histogram h = recorder.getIntervalHistogram();
        Map<String, Long> counted = new TreeMap<>();
        outcomes.forEach((k, v) -> counted.put(k, v.sum()));
        Result r =
            Result.of(
                workload,
                seconds,
                h,
                counted,
                delta,
                new Result.Cpu(appCpuNanos, machineCpuNanos, logBytes, split),
                firstError.get());
        System.err.println("   " + r.summary());
        return r;
      } finally {
        pool.shutdownNow();
      }
    } catch (Exception e) {
      System.err.println("   FAILED: " + e);
      e.printStackTrace();
      return Result.failed(workload, e);
    }
  }

  private static void phase(
      Workload workload,
      ExecutorService pool,
      long[] next,
      double seconds,
      long callsPerThread,
      Recorder recorder,
      Map<String, LongAdder> outcomes,
      AtomicReference<Throwable> firstError)
      throws Exception {
    if (seconds <= 0 && callsPerThread <= 0) {
      return;
    }
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < next.length; t++) {
      int thread = t;
      futures.add(
          pool.submit(
              () -> {
                long calls = 0;
                while (System.nanoTime() < deadline
                    && (callsPerThread <= 0 || calls < callsPerThread)) {
                  long n = next[thread]++;
                  calls++;
                  long start = System.nanoTime();
                  String outcome;
                  try {
                    outcome = workload.call(thread, n);
                  } catch (Exception e) {
                    firstError.compareAndSet(null, e);
                    outcome = "error";
                  }
                  recorder.recordValue(
                      Math.min(MAX_LATENCY_MICROS, (System.nanoTime() - start) / 1000));
                  outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
  }
}
