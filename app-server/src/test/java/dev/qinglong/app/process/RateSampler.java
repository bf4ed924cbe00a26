package dev.qinglong.app.process;

import dev.qinglong.testkit.RawHttp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Samples the bytes received by several {@link RawHttp.Download}s (each tagged with the slot of the
 * gateway that serves it) every few tens of milliseconds, and checks every window between two
 * samples against a byte-rate budget: over a window of {@code Δ} seconds the downloads of one slot
 * may receive at most {@code share·Δ + share} (the token bucket's rate plus one burst), all of them
 * together at most {@code rate·Δ + rate}, each download with some slack for bytes that were
 * admitted before the window but still sat in socket buffers (and for a client thread that was
 * descheduled for a moment).
 *
 * <p>Downloads may be added while sampling (a replacement gateway's download); before it is added a
 * download counts as 0. Each sample records the clock before and after reading the counters, and a
 * window is measured from the first sample's "before" to the second's "after", so a slow sampler
 * only makes the bound looser, never stricter.
 */
final class RateSampler implements AutoCloseable {
  private static final int MAX = 16;

  private record Sample(long beforeNanos, long afterNanos, long[] bytes) {}

  private final RawHttp.Download[] downloads = new RawHttp.Download[MAX];
  private final int[] slots = new int[MAX];
  private final String[] names = new String[MAX];
  private volatile int count;
  private final List<Sample> samples = new ArrayList<>();
  private final long periodMillis;
  private final long startNanos = System.nanoTime();
  private final Thread thread;
  private volatile boolean running = true;

  RateSampler(long periodMillis) {
    this.periodMillis = periodMillis;
    this.thread = new Thread(this::loop, "rate-sampler");
    this.thread.setDaemon(true);
  }

  /** Adds a download served by a gateway on {@code slot}. */
  synchronized RateSampler add(String name, int slot, RawHttp.Download d) {
    int i = count;
    if (i == MAX) {
      throw new IllegalStateException("too many downloads");
    }
    downloads[i] = d;
    slots[i] = slot;
    names[i] = name;
    count = i + 1;
    return this;
  }

  RateSampler start() {
    thread.start();
    return this;
  }

  /** Seconds since this sampler was created. */
  double seconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private void loop() {
    while (running) {
      sampleOnce();
      try {
        Thread.sleep(periodMillis);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void sampleOnce() {
    long before = System.nanoTime();
    long[] bytes = new long[MAX];
    int n = count;
    for (int i = 0; i < n; i++) {
      bytes[i] = downloads[i].received.get();
    }
    long after = System.nanoTime();
    synchronized (samples) {
      samples.add(new Sample(before, after, bytes));
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join(5_000);
    sampleOnce();
  }

  int sampleCount() {
    synchronized (samples) {
      return samples.size();
    }
  }

  /**
   * Checks every window of at least {@code minWindowSeconds} between two samples.
   *
   * @return a one-line summary (highest use of the total budget seen)
   * @throws AssertionError naming the first window that exceeds a bound
   */
  String check(
      long totalRate, long share, long slackPerDownload, double minWindowSeconds, int slotCount) {
    List<Sample> s;
    synchronized (samples) {
      s = new ArrayList<>(samples);
    }
    int n = count;
    double worstTotal = 0;
    String worst = "no window";
    for (int i = 0; i < s.size(); i++) {
      Sample a = s.get(i);
      for (int j = i + 1; j < s.size(); j++) {
        Sample b = s.get(j);
        double window = (b.afterNanos - a.beforeNanos) / 1e9;
        if (window < minWindowSeconds) {
          continue;
        }
        long total = 0;
        long[] perSlot = new long[slotCount];
        int[] downloadsPerSlot = new int[slotCount];
        int active = 0;
        for (int k = 0; k < n; k++) {
          long got = b.bytes[k] - a.bytes[k];
          if (got > 0 || b.bytes[k] > 0) {
            active++;
            downloadsPerSlot[slots[k]]++;
          }
          total += got;
          perSlot[slots[k]] += got;
        }
        long totalBound = (long) (totalRate * window) + totalRate + active * slackPerDownload;
        if (total > totalBound) {
          throw new AssertionError(
              describe("all gateways", a, b, window, total, totalBound, s.get(0), n));
        }
        for (int slot = 0; slot < slotCount; slot++) {
          long bound = (long) (share * window) + share + downloadsPerSlot[slot] * slackPerDownload;
          if (perSlot[slot] > bound) {
            throw new AssertionError(
                describe("slot " + slot, a, b, window, perSlot[slot], bound, s.get(0), n));
          }
        }
        double use = (double) total / (totalRate * window + totalRate);
        if (use > worstTotal) {
          worstTotal = use;
          worst =
              String.format(
                  "%d bytes in %.2f s from %.2f s (%.0f%% of rate·Δ + rate)",
                  total, window, (a.beforeNanos - s.get(0).beforeNanos) / 1e9, use * 100);
        }
      }
    }
    return s.size() + " samples; highest use of the total budget: " + worst;
  }

  private String describe(
      String what, Sample a, Sample b, double window, long got, long bound, Sample first, int n) {
    Map<String, Long> per = new TreeMap<>();
    for (int k = 0; k < n; k++) {
      per.put(names[k] + "@slot" + slots[k], b.bytes[k] - a.bytes[k]);
    }
    return String.format(
        "%s received %d bytes in the %.3f s window from %.3f s, bound %d; per download: %s",
        what, got, window, (a.beforeNanos - first.beforeNanos) / 1e9, bound, per);
  }
}
