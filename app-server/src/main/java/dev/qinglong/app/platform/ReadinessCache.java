package dev.qinglong.app.platform;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.health.contributor.Health;
import org.springframework.stereotype.Component;

/**
 * Readiness from cached probes (docs/design.md#operations): each registered probe (schemas and
 * pools, download coordination) runs once when the context is complete and then every {@code
 * qinglong.readiness.refresh-interval} on one background thread. A readiness call only reads the
 * last result: it never waits for, nor adds load to, the database and its small pools.
 */
@Component
public class ReadinessCache implements SmartInitializingSingleton, DisposableBean {
  private static final Logger log = LoggerFactory.getLogger(ReadinessCache.class);
  private static final Health PENDING =
      Health.outOfService().withDetail("problem", "first probe pending").build();

  private final long intervalMillis;
  private final List<Entry> entries = new ArrayList<>();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "qinglong-readiness");
            t.setDaemon(true);
            return t;
          });
  private boolean started;

  public ReadinessCache(ReadinessProperties readiness) {
    this.intervalMillis = readiness.refreshInterval().toMillis();
  }

  private record Entry(String name, Supplier<Health> probe, AtomicReference<Health> last) {
    void refresh() {
      Health h;
      try {
        h = probe.get();
      } catch (RuntimeException e) {
        // A probe that throws is a failed probe: DOWN, without the exception in the answer.
        log.warn("readiness.probe-failed probe={} reason={}", name, e.toString());
        h = Health.down().withDetail("problem", "probe failed").build();
      }
      last.set(h);
    }
  }

  /**
   * Registers {@code probe} (which may query the database) and returns the view a health indicator
   * answers with: the probe's last result, {@code OUT_OF_SERVICE} until its first run.
   */
  public synchronized Supplier<Health> register(String name, Supplier<Health> probe) {
    Entry entry = new Entry(name, probe, new AtomicReference<>(PENDING));
    entries.add(entry);
    if (started) {
      entry.refresh();
    }
    return entry.last()::get;
  }

  /** Runs every probe once (before the server takes traffic), then in the background. */
  @Override
  public synchronized void afterSingletonsInstantiated() {
    started = true;
    refreshAll();
    scheduler.scheduleWithFixedDelay(
        this::refreshAll, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
  }

  private void refreshAll() {
    List<Entry> snapshot;
    synchronized (this) {
      snapshot = List.copyOf(entries);
    }
    snapshot.forEach(Entry::refresh);
  }

  @Override
  public void destroy() {
    scheduler.shutdownNow();
  }
}
