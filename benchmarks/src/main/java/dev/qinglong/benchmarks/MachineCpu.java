package dev.qinglong.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;

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
