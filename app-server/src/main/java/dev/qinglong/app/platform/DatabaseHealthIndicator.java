package dev.qinglong.app.platform;

import dev.qinglong.backend.OpenedStore;
import dev.qinglong.backend.SchemaProbe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * Readiness of the store: every pool this process opened answers and each schema it uses is at
 * least the version this build needs. DOWN otherwise; it recovers by itself once the database
 * answers again. The probes run in the background ({@link ReadinessCache}); a readiness call only
 * reads their last result.
 *
 * <p>The probes of one refresh run at the same time, one thread each (a probe still running from an
 * earlier refresh is awaited, not started again), and a refresh waits at most {@link
 * #REFRESH_BOUND} for them: against a database that is slow or silently dropping packets each probe
 * takes up to a pool wait plus a socket timeout, and run one after the other they kept readiness UP
 * for a whole round of them (found by DatabaseFaultsIT: UP through a 6 s fault).
 */
@Component("database")
public class DatabaseHealthIndicator implements HealthIndicator, DisposableBean {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  /** A probe that has not answered by then is DOWN ("timed out"); it may finish later unseen. */
  static final Duration REFRESH_BOUND = Duration.ofSeconds(4);

  private final OpenedStore backend;
  private final Supplier<Health> cached;
  private final ExecutorService executor;
  private final Map<SchemaProbe, Future<SchemaProbe.Result>> inFlight = new java.util.HashMap<>();

  public DatabaseHealthIndicator(OpenedStore backend, ReadinessCache cache) {
    this.backend = backend;
    AtomicInteger n = new AtomicInteger();
    this.executor =
        Executors.newFixedThreadPool(
            Math.max(1, backend.probes().size()),
            r -> {
              Thread t = new Thread(r, "qinglong-readiness-probe-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.cached = cache.register("database", this::probe);
  }

  @Override
  public Health health() {
    return cached.get();
  }

  /** Runs every schema probe (a query per pool): only from the background refresh. */
  synchronized Health probe() {
    List<SchemaProbe> probes = backend.probes();
    List<Future<SchemaProbe.Result>> running = new ArrayList<>(probes.size());
    for (SchemaProbe probe : probes) {
      Future<SchemaProbe.Result> previous = inFlight.get(probe);
      Future<SchemaProbe.Result> f =
          previous != null && !previous.isDone()
              ? previous
              : executor.submit(() -> probe.check(TIMEOUT));
      inFlight.put(probe, f);
      running.add(f);
    }
    long deadline = System.nanoTime() + REFRESH_BOUND.toNanos();
    boolean up = true;
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("store", backend.kind());
    for (int i = 0; i < probes.size(); i++) {
      SchemaProbe.Result result = await(running.get(i), deadline, probes.get(i));
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("status", result.up() ? "UP" : "DOWN");
      d.put("schemaVersion", result.schemaVersion());
      d.put("requiredSchemaVersion", result.requiredVersion());
      if (result.problem() != null) {
        d.put("problem", result.problem());
      }
      details.put(result.name(), d);
      up &= result.up();
    }
    return (up ? Health.up() : Health.down()).withDetails(details).build();
  }

  private static SchemaProbe.Result await(
      Future<SchemaProbe.Result> future, long deadlineNanos, SchemaProbe probe) {
    try {
      return future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return probe.failed("timed out");
    } catch (ExecutionException e) {
      return probe.failed("database unreachable");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return probe.failed("interrupted");
    }
  }

  @Override
  public void destroy() {
    executor.shutdownNow();
  }
}
