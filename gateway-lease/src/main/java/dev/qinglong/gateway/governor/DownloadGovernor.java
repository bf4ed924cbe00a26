package dev.qinglong.gateway.governor;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketListener;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local download governor (docs/design.md#standalone-and-shared-downloads): token buckets
 * (Bucket4j) for the whole process and for each principal, applied to payload bytes only. It knows
 * nothing of SQL or leases: in shared mode it is simply built with the process's share and the
 * lease as its {@link ServingGate}.
 *
 * <p>Each bucket holds at most one second of its rate (the burst) and refills greedily, so over any
 * interval {@code t} a limit admits at most {@code rate * t + rate} bytes. A streaming download
 * calls {@link #acquire} before writing each chunk.
 *
 * <p>Per-principal buckets live in a bounded map: a bucket unused for {@code idleEviction} (at
 * least one second, the time a bucket needs to refill completely) is full again, so dropping it and
 * later starting a fresh, full one changes nothing. If more than {@code maxTrackedPrincipals} are
 * active at once the least recently used is dropped anyway: memory stays fixed, at the price of one
 * extra burst for that principal (the total limit still holds).
 *
 * <p>Thread-safe.
 */
public final class DownloadGovernor {
  public static final int DEFAULT_MAX_TRACKED_PRINCIPALS = 10_000;
  public static final Duration DEFAULT_IDLE_EVICTION = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(DownloadGovernor.class);
  private static final Duration ONE_SECOND = Duration.ofSeconds(1);

  private final DownloadRates rates;
  private final ServingGate gate;
  private final GovernorListener listener;
  private final int maxTrackedPrincipals;
  private final long idleEvictionNanos;
  private final Bucket total; // null: no total limit
  private final BucketListener principalParking;
  private final long maxPiece;
  private final GovernorTime time;

  // Access-ordered: the eldest entry is the least recently used principal. Guarded by itself.
  private final LinkedHashMap<String, Tracked> principals = new LinkedHashMap<>(64, 0.75f, true);

  /** A governor with the default principal bound and idle eviction. */
  public DownloadGovernor(DownloadRates rates, ServingGate gate, GovernorListener listener) {
    this(rates, gate, listener, DEFAULT_MAX_TRACKED_PRINCIPALS, DEFAULT_IDLE_EVICTION);
  }

  /**
   * @param rates the limits of this process (its share in shared mode); 0 = unlimited
   * @param gate asked before and after every chunk
   * @param listener metrics hooks
   * @param maxTrackedPrincipals at least 1
   * @param idleEviction at least 1 s
   */
  public DownloadGovernor(
      DownloadRates rates,
      ServingGate gate,
      GovernorListener listener,
      int maxTrackedPrincipals,
      Duration idleEviction) {
    this(rates, gate, listener, maxTrackedPrincipals, idleEviction, GovernorTime.SYSTEM);
  }

  /** As the public constructor, on {@code time} instead of the system's (for tests). */
  DownloadGovernor(
      DownloadRates rates,
      ServingGate gate,
      GovernorListener listener,
      int maxTrackedPrincipals,
      Duration idleEviction,
      GovernorTime time) {
    this.time = Objects.requireNonNull(time, "time");
    this.rates = Objects.requireNonNull(rates, "rates");
    this.gate = Objects.requireNonNull(gate, "gate");
    this.listener = Objects.requireNonNull(listener, "listener");
    if (maxTrackedPrincipals < 1) {
      throw new IllegalArgumentException("maxTrackedPrincipals must be >= 1");
    }
    if (idleEviction.compareTo(ONE_SECOND) < 0) {
      // Shorter would drop buckets that are not yet full: a fresh bucket would add a burst.
      throw new IllegalArgumentException("idleEviction must be >= 1s, was " + idleEviction);
    }
    this.maxTrackedPrincipals = maxTrackedPrincipals;
    this.idleEvictionNanos = idleEviction.toNanos();
    this.total =
        rates.limitsTotal()
            ? newBucket(rates.bytesPerSecond(), parkingListener(GovernorListener.Limit.TOTAL))
            : null;
    this.principalParking = parkingListener(GovernorListener.Limit.PRINCIPAL);
    // A request larger than a bucket's capacity could never be granted: chunks are split.
    long piece = Long.MAX_VALUE;
    if (rates.limitsTotal()) {
      piece = Math.min(piece, rates.bytesPerSecond());
    }
    if (rates.limitsPrincipals()) {
      piece = Math.min(piece, rates.perPrincipalBytesPerSecond());
    }
    this.maxPiece = piece;
  }

  /** The limits this governor enforces. */
  public DownloadRates rates() {
    return rates;
  }

  /** Whether payload may be sent now (the gate is open). */
  public boolean mayServe() {
    return gate.mayServe();
  }

  /**
   * Waits until {@code bytes} of payload for {@code principal} fit both limits, then admits them.
   * Call it before writing each chunk of a download.
   *
   * @param principal the authenticated user id the download is for
   * @param bytes the chunk size, {@code >= 0}; a chunk larger than a burst is admitted piecewise
   * @param maxWait the longest this call may wait in total
   * @throws DownloadsHaltedException if the gate is closed before or after the wait: send nothing
   * @throws ThrottleTimeoutException if the wait would exceed {@code maxWait}; the refused part
   *     consumed nothing (already admitted pieces stay admitted)
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  public void acquire(String principal, long bytes, Duration maxWait) throws InterruptedException {
    Objects.requireNonNull(principal, "principal");
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0, was " + bytes);
    }
    checkGate();
    long deadline = time.currentTimeNanos() + maxWait.toNanos();
    Bucket perPrincipal = rates.limitsPrincipals() ? principalBucket(principal) : null;
    long remaining = bytes;
    while (remaining > 0) {
      long piece = Math.min(remaining, maxPiece);
      if (perPrincipal != null && !consume(perPrincipal, piece, deadline)) {
        throw timeout(piece);
      }
      if (total != null && !consume(total, piece, deadline)) {
        if (perPrincipal != null) {
          // Hand back what this principal did not get to use.
          perPrincipal.addTokens(piece);
        }
        throw timeout(piece);
      }
      // The gate may have closed while this chunk waited: then it must not go out.
      checkGate();
      remaining -= piece;
      notify(() -> listener.onBytesServed(principal, piece));
    }
  }

  /** How many per-principal buckets are held right now (for metrics and tests). */
  public int trackedPrincipals() {
    synchronized (principals) {
      return principals.size();
    }
  }

  private boolean consume(Bucket bucket, long tokens, long deadline) throws InterruptedException {
    long waitNanos = deadline - time.currentTimeNanos();
    if (waitNanos <= 0) {
      return bucket.tryConsume(tokens);
    }
    // Reserves only if the wait fits the bound; parks interruptibly.
    return time == GovernorTime.SYSTEM
        ? bucket.asBlocking().tryConsume(tokens, waitNanos)
        : bucket.asBlocking().tryConsume(tokens, waitNanos, time);
  }

  private void checkGate() {
    if (!gate.mayServe()) {
      notify(() -> listener.onRefused(GovernorListener.Refusal.HALTED));
      throw new DownloadsHaltedException("downloads are halted: the serving gate is closed");
    }
  }

  private ThrottleTimeoutException timeout(long piece) {
    notify(() -> listener.onRefused(GovernorListener.Refusal.WAIT_BOUND_EXCEEDED));
    return new ThrottleTimeoutException(
        "a chunk of " + piece + " bytes would wait longer than its bound");
  }

  private Bucket principalBucket(String principal) {
    long now = time.currentTimeNanos();
    synchronized (principals) {
      Tracked tracked = principals.get(principal);
      if (tracked == null) {
        tracked = new Tracked(newBucket(rates.perPrincipalBytesPerSecond(), principalParking), now);
        principals.put(principal, tracked);
        evict(now);
      } else {
        tracked.lastUsedNanos = now;
      }
      return tracked.bucket;
    }
  }

  // Caller holds the principals lock.
  private void evict(long now) {
    Iterator<Map.Entry<String, Tracked>> eldestFirst = principals.entrySet().iterator();
    while (eldestFirst.hasNext()) {
      Tracked eldest = eldestFirst.next().getValue();
      boolean idle = now - eldest.lastUsedNanos >= idleEvictionNanos;
      if (!idle && principals.size() <= maxTrackedPrincipals) {
        return;
      }
      eldestFirst.remove();
    }
  }

  private Bucket newBucket(long bytesPerSecond, BucketListener parking) {
    Bandwidth limit =
        Bandwidth.builder()
            .capacity(bytesPerSecond)
            .refillGreedy(bytesPerSecond, ONE_SECOND)
            .initialTokens(bytesPerSecond)
            .build();
    if (time == GovernorTime.SYSTEM) {
      // Bucket4j's default time source, exactly as before the time became replaceable.
      return Bucket.builder().addLimit(limit).withListener(parking).build();
    }
    return Bucket.builder()
        .addLimit(limit)
        .withCustomTimePrecision(time)
        .withListener(parking)
        .build();
  }

  private BucketListener parkingListener(GovernorListener.Limit limit) {
    return new BucketListener() {
      @Override
      public void onConsumed(long tokens) {}

      @Override
      public void onRejected(long tokens) {}

      @Override
      public void onParked(long nanos) {
        DownloadGovernor.this.notify(() -> listener.onThrottled(limit, nanos));
      }

      @Override
      public void onInterrupted(InterruptedException e) {}

      @Override
      public void onDelayed(long nanos) {}
    };
  }

  private void notify(Runnable hook) {
    try {
      hook.run();
    } catch (RuntimeException e) {
      log.warn("governor listener failed; ignored", e);
    }
  }

  private static final class Tracked {
    final Bucket bucket;
    long lastUsedNanos; // guarded by the principals lock

    Tracked(Bucket bucket, long now) {
      this.bucket = bucket;
      this.lastUsedNanos = now;
    }
  }
}
