package dev.qinglong.app.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP fault proxy between the app and PostgreSQL, switchable at run time:
 *
 * <ul>
 *   <li>{@link Mode#PASS}: bytes pass unchanged;
 *   <li>{@link Mode#LATENCY}: every chunk, both directions, is held {@link #latency(Duration)}
 *       before it is passed on (in order: one thread per direction);
 *   <li>{@link Mode#BLACKHOLE}: new connections are accepted and never answered, bytes on open ones
 *       are swallowed, nothing is closed — a network that silently drops packets (a failover). The
 *       dropped bytes leave those connections out of step, so leaving this mode resets them;
 *   <li>{@link Mode#REFUSE}: new connections are reset at once (accepted, then closed with an RST),
 *       as a host with nothing listening; open ones are left alone;
 *   <li>{@link #resetAll()}: every open connection, both sides, is reset (RST: {@code SO_LINGER 0})
 *       — the database's connections dying mid-statement.
 * </ul>
 *
 * <p>Hand-written on purpose: Toxiproxy would need a downloaded binary or Docker, which the build
 * must not depend on; this is plain sockets and two threads per connection. ({@code
 * dev.qinglong.testkit.TcpProxy} serves the lease tests with a lease-start gate; this one has the
 * modes the database fault suite needs.)
 */
final class FaultProxy implements AutoCloseable {
  enum Mode {
    PASS,
    LATENCY,
    BLACKHOLE,
    REFUSE
  }

  private final InetSocketAddress target;
  private final ServerSocket server;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  private volatile Mode mode = Mode.PASS;
  private volatile long latencyMillis;
  private volatile boolean closed;

  FaultProxy(String targetHost, int targetPort) throws IOException {
    this.target = new InetSocketAddress(targetHost, targetPort);
    this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "fault-proxy-accept-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** The latency of {@link Mode#LATENCY}. */
  FaultProxy latency(Duration latency) {
    this.latencyMillis = latency.toMillis();
    return this;
  }

  /** Switches the mode; leaving {@link Mode#BLACKHOLE} resets the connections it swallowed from. */
  synchronized void mode(Mode next) {
    Mode previous = mode;
    mode = next;
    if (previous == Mode.BLACKHOLE && next != Mode.BLACKHOLE) {
      resetAll();
    }
  }

  Mode mode() {
    return mode;
  }

  /** Resets every open connection (RST to both the app and PostgreSQL). */
  void resetAll() {
    for (Link link : links) {
      if (link.reset()) {
        resets.incrementAndGet();
      }
    }
  }

  /**
   * Connections reset so far (by {@link #resetAll()}, a blackhole's end, or {@link Mode#REFUSE}).
   */
  long resets() {
    return resets.get();
  }

  /** Connections accepted so far. */
  long accepted() {
    return accepted.get();
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // Closed already.
    }
    resetAll();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      accepted.incrementAndGet();
      Mode now = mode;
      if (now == Mode.REFUSE) {
        rst(client);
        resets.incrementAndGet();
        continue;
      }
      Link link = new Link(client);
      links.add(link);
      if (now == Mode.BLACKHOLE) {
        link.swallowOnly(); // connected to nothing: never answers
        continue;
      }
      try {
        Socket upstream = new Socket();
        upstream.connect(target, 2_000);
        link.connect(upstream);
      } catch (IOException e) {
        link.reset();
      }
    }
  }

  private final class Link {
    private final Socket client;
    private volatile Socket upstream;
    private volatile boolean gone;

    Link(Socket client) {
      this.client = client;
    }

    void connect(Socket upstream) throws IOException {
      this.upstream = upstream;
      pump(client.getInputStream(), upstream.getOutputStream(), "up");
      pump(upstream.getInputStream(), client.getOutputStream(), "down");
    }

    void swallowOnly() {
      try {
        pump(client.getInputStream(), OutputStream.nullOutputStream(), "swallow");
      } catch (IOException e) {
        reset();
      }
    }

    /** Resets both sides; false if this link was gone already. */
    synchronized boolean reset() {
      if (gone) {
        return false;
      }
      gone = true;
      links.remove(this);
      rst(client);
      if (upstream != null) {
        rst(upstream);
      }
      return true;
    }

    private void pump(InputStream in, OutputStream out, String direction) {
      Thread t =
          new Thread(
              () -> {
                byte[] buffer = new byte[16 * 1024];
                try {
                  int n;
                  while ((n = in.read(buffer)) != -1) {
                    Mode now = mode;
                    if (now == Mode.BLACKHOLE) {
                      continue; // swallowed
                    }
                    if (now == Mode.LATENCY && latencyMillis > 0) {
                      Thread.sleep(latencyMillis);
                      if (mode == Mode.BLACKHOLE) {
                        continue;
                      }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                  }
                } catch (IOException | InterruptedException e) {
                  // Reset or closed: end of this direction.
                }
                reset();
              },
              "fault-proxy-" + direction);
      t.setDaemon(true);
      t.start();
    }
  }

  /** Closes with an RST instead of a FIN: the peer sees "connection reset". */
  private static void rst(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (IOException e) {
      // Not connected any more; close anyway.
    }
    try {
      s.close();
    } catch (IOException e) {
      // Closed already.
    }
  }
}
