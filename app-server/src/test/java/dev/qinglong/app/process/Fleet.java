package dev.qinglong.app.process;

import dev.qinglong.testkit.AppProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * App processes of one deployment that a crash test kills (SIGKILL) and restarts under the same
 * configuration, and that clients pick from: a {@link Slot} is one configured process, restarted as
 * a new JVM on new ports after every kill.
 */
final class Fleet implements AutoCloseable {
  /** One configured process; {@link #current} is the JVM serving it now. */
  static final class Slot {
    final String name;
    final Map<String, String> properties;
    final boolean api;
    final boolean downloads;
    volatile AppProcess current;
    volatile boolean up;
    int starts;

    Slot(String name, Map<String, String> properties, boolean api, boolean downloads) {
      this.name = name;
      this.properties = properties;
      this.api = api;
      this.downloads = downloads;
    }
  }

  private final Path logDir;
  private final List<Slot> slots = new ArrayList<>();
  private final List<AppProcess> all = new ArrayList<>();
  final AtomicInteger kills = new AtomicInteger();
  final AtomicInteger restarts = new AtomicInteger();

  Fleet(Path logDir) {
    this.logDir = logDir;
  }

  /** Declares a process (not started yet). */
  Slot add(String name, Map<String, String> properties, boolean api, boolean downloads) {
    Slot s = new Slot(name, properties, api, downloads);
    slots.add(s);
    return s;
  }

  List<Slot> slots() {
    return List.copyOf(slots);
  }

  /**
   * Starts the first declared process and waits until it is ready (it writes the dev tokens and the
   * storage identity the others read), then the others at once and waits until each is ready.
   */
  void startAll(Duration timeout) throws Exception {
    launch(slots.get(0));
    slots.get(0).current.awaitReady(timeout);
    for (Slot s : slots.subList(1, slots.size())) {
      launch(s);
    }
    for (Slot s : slots) {
      s.current.awaitReady(timeout);
      s.up = true;
    }
  }

  private synchronized void launch(Slot s) throws IOException {
    s.starts++;
    s.current = AppProcess.start(s.name + "-" + s.starts, logDir, s.properties);
    all.add(s.current);
  }

  /** SIGKILL of the slot's process: clients stop choosing it first, then it dies. */
  void kill(Slot s) throws InterruptedException {
    s.up = false;
    s.current.kill();
    kills.incrementAndGet();
  }

  /** A new JVM for a killed slot, ready when this returns. */
  void restart(Slot s, Duration timeout) throws Exception {
    launch(s);
    s.current.awaitReady(timeout);
    s.up = true;
    restarts.incrementAndGet();
  }

  /** Starts new JVMs for every given slot at once and waits until each is ready. */
  void restartAll(List<Slot> killed, Duration timeout) throws Exception {
    for (Slot s : killed) {
      launch(s);
    }
    for (Slot s : killed) {
      s.current.awaitReady(timeout);
      s.up = true;
      restarts.incrementAndGet();
    }
  }

  /** Processes serving the API now. */
  List<AppProcess> api() {
    List<AppProcess> out = new ArrayList<>();
    for (Slot s : slots) {
      if (s.api && s.up) {
        out.add(s.current);
      }
    }
    return out;
  }

  /** Processes that may serve download payload now. */
  List<AppProcess> downloads() {
    List<AppProcess> out = new ArrayList<>();
    for (Slot s : slots) {
      if (s.downloads && s.up) {
        out.add(s.current);
      }
    }
    return out;
  }

  @Override
  public void close() throws InterruptedException {
    for (AppProcess p : all) {
      p.close();
    }
  }
}
