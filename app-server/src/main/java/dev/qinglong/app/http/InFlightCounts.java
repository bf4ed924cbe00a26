package dev.qinglong.app.http;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Requests in flight per key (client address, user), each key bounded by {@code max}. An entry
 * exists only while its count is positive, and every change happens inside the map's per-key
 * compute, so no count can be lost or detached.
 */
final class InFlightCounts {
  private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();
  private final int max;

  InFlightCounts(int max) {
    this.max = max;
  }

  /** Counts one more request of {@code key} unless it is at the bound. */
  boolean tryAcquire(String key) {
    boolean[] admitted = {false};
    counts.compute(
        key,
        (k, n) -> {
          int current = n == null ? 0 : n;
          if (current >= max) {
            return n;
          }
          admitted[0] = true;
          return current + 1;
        });
    return admitted[0];
  }

  void release(String key) {
    counts.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
  }

  int total() {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }
}
