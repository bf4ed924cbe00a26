package dev.qinglong.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;

/**
 * CPU time the whole machine has spent busy so far, from the first line of {@code /proc/stat}
 * (user, nice, system, irq, softirq and steal; idle and iowait are not busy), in nanoseconds. Its
 * unit is the kernel's USER_HZ, 100 per second on every Linux build the harness runs on.
 */
final class MachineCpu {
  private static final long NANOS_PER_TICK = 10_000_000L;

  private MachineCpu() {}

  /** Busy nanoseconds of all CPUs together, or -1 where there is no {@code /proc/stat}. */
  static long busyNanos() {
    try {
      String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
      return busyTicks(line) * NANOS_PER_TICK;
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * Where the machine's CPU goes, from {@code /proc}: the app's JIT compiler threads, every
   * PostgreSQL process of the machine (the server's backends, its WAL writer, checkpointer, …) and
   * the harness itself, each in nanoseconds so far, or -1 where {@code /proc} tells none. A
   * PostgreSQL backend that exits between two readings takes its time with it; the workloads' pools
   * keep theirs for the whole phase.
   */
  record Split(long appJitNanos, long postgresNanos, long harnessNanos) {
    static Split now(long appPid) {
      return new Split(
          appPid < 0 ? -1 : jitNanos(appPid),
          postgresProcessesNanos(),
          ticks(Path.of("/proc/self/stat")) * NANOS_PER_TICK);
    }

    Split minus(Split before) {
      return new Split(
          diff(appJitNanos, before.appJitNanos),
          diff(postgresNanos, before.postgresNanos),
          diff(harnessNanos, before.harnessNanos));
    }

    private static long diff(long after, long before) {
      return after < 0 || before < 0 ? -1 : after - before;
    }
  }

  /** CPU of the threads of {@code pid} named {@code C1 CompilerThre…}/{@code C2 CompilerThre…}. */
  private static long jitNanos(long pid) {
    return sumNanos(Path.of("/proc/" + pid + "/task"), "*", c -> c.matches("C\\d CompilerThre.*"));
  }

  private static long postgresProcessesNanos() {
    return sumNanos(Path.of("/proc"), "[0-9]*", "postgres"::equals);
  }

  /**
   * utime + stime of the entries of {@code dir} matching {@code glob} (processes or threads) whose
   * command {@code commandMatches}, in nanoseconds, or -1 where {@code dir} cannot be read.
   */
  private static long sumNanos(Path dir, String glob, Predicate<String> commandMatches) {
    long sum = 0;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, glob)) {
      for (Path entry : entries) {
        String stat = read(entry.resolve("stat"));
        if (stat != null && commandMatches.test(command(stat))) {
          sum += ticksOf(stat);
        }
      }
      return sum * NANOS_PER_TICK;
    } catch (IOException e) {
      return -1;
    }
  }

  private static long ticks(Path stat) {
    String s = read(stat);
    return s == null ? -1 : ticksOf(s);
  }

  /** utime + stime of a {@code /proc/…/stat} line (fields 14 and 15, after the command). */
  static long ticksOf(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private static String command(String stat) {
    return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return null; // the process or thread ended
    }
  }

  /** The busy ticks of a {@code cpu user nice system idle iowait irq softirq steal …} line. */
  static long busyTicks(String cpuLine) {
    String[] f = cpuLine.trim().split("\\s+");
    if (!f[0].equals("cpu") || f.length < 9) {
      throw new IllegalArgumentException("not the cpu line of /proc/stat: " + cpuLine);
    }
    long busy = 0;
    for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
      busy += Long.parseLong(f[i]);
    }
    return busy;
  }
}
