package dev.qinglong.benchmarks;

import java.util.Map;

/**
 * One measured thing: a system under test (the raw statement, Bucket4j, the store, the HTTP API …)
 * doing one kind of call. The {@link Runner} calls {@link #setUp} (fresh database, pools, app
 * process: never timed), then {@link #call} from {@link #threads()} client threads through a
 * warm-up phase and a timed phase, then {@link #close}.
 */
interface Workload extends AutoCloseable {

  /** The row of the result table, e.g. {@code distinct-users}. */
  String scenario();

  /** The column: what executes the call, e.g. {@code raw-jdbc}, {@code store}, {@code http}. */
  String system();

  /** Client threads. */
  int threads();

  /**
   * How long (or how many calls) each phase runs; by default 1 s + 3 s (quick) or 10 s + 30 s
   * (full), short enough for a hot bucket to stay in one 60 s window from its exhaustion to the
   * end.
   */
  default Phases phases(Mode mode) {
    return Phases.timed(mode, 1, 3, 10, 30);
  }

  /** Everything the calls need; not timed. */
  void setUp(Mode mode) throws Exception;

  /**
   * One call: the {@code n}-th call (counting from 0 over both phases) of client thread {@code
   * thread}. Returns a short outcome label (e.g. {@code allowed}, {@code rejected}) that the runner
   * counts; throws if the call failed in a way the workload does not expect.
   */
  String call(int thread, long n) throws Exception;

  /** Whether the quick mode runs this workload too (else only the full run). */
  default boolean inQuickMode() {
    return true;
  }

  /** The database whose counters are read around the timed phase, or null (not PostgreSQL). */
  default FreshDatabase database() {
    return null;
  }

  /**
   * How many units one call moves when the rate is not calls per second (downloads: bytes); 1
   * otherwise.
   */
  default long unitsPerCall() {
    return 1;
  }

  /** The unit of {@link #unitsPerCall()}, e.g. {@code calls} or {@code bytes}. */
  default String unit() {
    return "calls";
  }

  /**
   * CPU time (user + system, all threads) the app process serving the calls has used so far, in
   * nanoseconds, or -1 when the calls run in the harness itself. The runner reads it around the
   * timed phase: the app's CPU per call, which a loaded machine disturbs far less than the rate.
   */
  default long appCpuNanos() {
    return -1;
  }

  /** The process id of the app serving the calls, or -1 when the calls run in the harness. */
  default long appPid() {
    return -1;
  }

  /**
   * Bytes the app process serving the calls has written to its log so far (its output file), or -1
   * when the calls run in the harness itself. The runner reads it around the timed phase: what a
   * call costs in log volume (e.g. an audit line per refusal).
   */
  default long appLogBytes() {
    return -1;
  }

  /** Facts about the set-up worth recording next to the result (pool size, limit, …). */
  default Map<String, Object> notes() {
    return Map.of();
  }

  @Override
  void close() throws Exception;

  /**
   * Closes each of {@code resources} that is not null, in order, even when an earlier one fails;
   * throws the first failure with the later ones suppressed.
   */
  static void closeInOrder(AutoCloseable... resources) throws Exception {
    Exception first = null;
    for (AutoCloseable resource : resources) {
      try {
        if (resource != null) {
          resource.close();
        }
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  /**
   * A workload whose calls a real app process serves: its CPU and its log are that app's (null
   * before the set-up started it).
   */
  interface OnApp extends Workload {
    BenchApp app();

    @Override
    default long appCpuNanos() {
      return app() == null ? -1 : app().cpuNanos();
    }

    @Override
    default long appLogBytes() {
      return app() == null ? -1 : app().logBytes();
    }

    @Override
    default long appPid() {
      return app() == null ? -1 : app().pid();
    }
  }

  /** Quick (under 5 minutes for everything) or full. */
  enum Mode {
    QUICK,
    FULL;

    boolean quick() {
      return this == QUICK;
    }
  }

  /**
   * Warm-up and timed phase. A phase ends after {@code seconds} or, when {@code callsPerThread >
   * 0}, once every thread made that many calls, whichever comes first.
   */
  record Phases(double warmupSeconds, double timedSeconds, long warmupCalls, long timedCalls) {
    static Phases timed(
        Mode mode, double quickWarmup, double quickTimed, double fullWarmup, double fullTimed) {
      return mode.quick()
          ? new Phases(quickWarmup, quickTimed, 0, 0)
          : new Phases(fullWarmup, fullTimed, 0, 0);
    }

    static Phases counted(long warmupCallsPerThread, long timedCallsPerThread) {
      return new Phases(3600, 3600, warmupCallsPerThread, timedCallsPerThread);
    }
  }
}
