package dev.qinglong.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP proxy between a client and PostgreSQL, to break the network on purpose, switchable
 * at run time:
 *
 * <ul>
 *   <li>{@link #setLatency} (both directions) and {@link #setResponseLatency} (answers only): every
 *       chunk is held that long before it is passed on. Each chunk is stamped with its release time
 *       when it is read, so latency delays bytes without reordering them; a change applies to bytes
 *       read from then on.
 *   <li>{@link #setSilent}: bytes are held, not forwarded, sockets stay open; they go on when it is
 *       lifted (a stalled network).
 *   <li>{@link #setBlackhole}: bytes on open connections are dropped, new connections are accepted
 *       and never answered, nothing is closed — a network that silently drops packets (a failover).
 *       The dropped bytes leave those connections out of step, so lifting it resets them.
 *   <li>{@link #cut()}: every open connection is reset and new ones are reset at once (as a host
 *       with nothing listening) until {@link #heal()}. A reset is an RST ({@code SO_LINGER 0}) to
 *       both sides: the peers see "connection reset", as when the database's connections die
 *       mid-statement. {@link #resetAll()} resets the open ones only.
 *   <li>{@link #retarget}: new connections go to another server (a promoted standby).
 *   <li>{@link #holdLeaseStarts()}: a new connection whose startup packet names the application
 *       {@code qinglong-download-lease} logs in normally, but its first statement (Parse or Query)
 *       is held until {@link #releaseLeaseStarts()}. So a test can let a process reach its lease
 *       step, change the world (stop or freeze the slot's old holder), and only then let the lease
 *       look at the slot. The hold must stay below the lease connection's socket timeout (20 s).
 *   <li>{@link #loseNextWriteResponse()}: the next admitting write runs and commits, then the
 *       server's answer is dropped and the client's connection closed — a response lost after
 *       commit. The write is an {@code INSERT} ({@code CommandComplete} tag) or the management
 *       quota's one-statement decision, a {@code SELECT} over a data-modifying CTE whose first
 *       column is the outcome: a row whose first column is {@code allowed}. It follows the
 *       PostgreSQL protocol's message framing (so the client must use {@code sslmode=disable}:
 *       every server message is then type byte + length) and waits for the {@code ReadyForQuery}
 *       that follows, which the server sends only after the implicit transaction committed.
 * </ul>
 *
 * <p>Hand-written on purpose. Toxiproxy, the well-kept tool for this, is a Go server that must run
 * as its own binary or Docker container (its Java artefact is only a client), which the build must
 * not depend on; no library on Maven Central offers such a proxy in-process. And half the faults
 * here read the PostgreSQL protocol (holding a lease's first statement, losing a committed write's
 * answer), which a generic proxy does not. This is plain sockets: per connection and direction, a
 * reader that stamps each chunk and a writer that releases it.
 */
public final class TcpProxy implements AutoCloseable {
  private static final byte[] LEASE_APPLICATION =
      "qinglong-download-lease".getBytes(StandardCharsets.US_ASCII);

  private final ServerSocket server;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Object silence = new Object();
  private final Object heldMonitor = new Object();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  private final AtomicInteger refused = new AtomicInteger();
  private final AtomicInteger responsesLost = new AtomicInteger();
  private final AtomicBoolean loseNextWrite = new AtomicBoolean();
  private volatile InetSocketAddress target;
  private volatile long latencyNanos;
  private volatile long responseLatencyNanos;
  private volatile boolean silent;
  private volatile boolean blackhole;
  private volatile boolean refusing;
  private volatile boolean closed;
  private volatile CountDownLatch
      leaseGate; // non-null: hold new lease connections' first statement
  private int heldLeaseStarts; // guarded by heldMonitor

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.target = new InetSocketAddress(targetHost, targetPort);
    this.server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The port this proxy listens on (127.0.0.1). */
  public int port() {
    return server.getLocalPort();
  }

  /** The port new connections go to. */
  public int targetPort() {
    return target.getPort();
  }

  /** New connections go to {@code targetPort} on the same host from now on; open ones stay. */
  public void retarget(int targetPort) {
    target = new InetSocketAddress(target.getHostString(), targetPort);
  }

  /** Delays every byte from PostgreSQL to the client by {@code latency} (from now on). */
  public void setResponseLatency(Duration latency) {
    responseLatencyNanos = latency.toNanos();
  }

  /** Delays every byte, both directions, by {@code latency} (from now on). */
  public void setLatency(Duration latency) {
    latencyNanos = latency.toNanos();
  }

  /** Forwards nothing while on: bytes are held, sockets stay open, and go on when it is off. */
  public void setSilent(boolean on) {
    synchronized (silence) {
      silent = on;
      silence.notifyAll();
    }
  }

  /**
   * Drops every byte and never answers new connections while on; turning it off resets every
   * connection, since those it dropped bytes from are out of step.
   */
  public synchronized void setBlackhole(boolean on) {
    boolean was = blackhole;
    blackhole = on;
    if (was && !on) {
      resetAll();
    }
  }

  /** Resets every open connection (and counts it in {@link #resets()}) and refuses new ones. */
  public void cut() {
    refusing = true;
    resetAll();
  }

  /** Lets new connections through again after {@link #cut()}. */
  public void heal() {
    refusing = false;
  }

  /** Resets every open connection (RST to both the client and PostgreSQL). */
  public void resetAll() {
    for (Link link : links) {
      if (link.reset()) {
        resets.incrementAndGet();
      }
    }
  }

  /** From now on, new lease connections are held before their first statement. */
  public void holdLeaseStarts() {
    leaseGate = new CountDownLatch(1);
  }

  /** Lets held lease connections go on; new ones are not held any more. */
  public void releaseLeaseStarts() {
    CountDownLatch gate = leaseGate;
    leaseGate = null;
    if (gate != null) {
      gate.countDown();
    }
  }

  /** Waits until a lease connection is being held; false if none is within {@code timeout}. */
  public boolean awaitHeldLeaseStart(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (heldMonitor) {
      long left;
      while (heldLeaseStarts == 0) {
        if ((left = deadline - System.nanoTime()) <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(heldMonitor, left);
      }
      return true;
    }
  }

  /** Arms the loss of the next admitting write's answer (after its commit). */
  public void loseNextWriteResponse() {
    loseNextWrite.set(true);
  }

  /** Answers dropped after commit so far ({@link #loseNextWriteResponse()}). */
  public int responsesLost() {
    return responsesLost.get();
  }

  /** Connections accepted so far. */
  public long accepted() {
    return accepted.get();
  }

  /** Connections reset so far: by {@link #resetAll()}, {@link #cut()} or a blackhole's end. */
  public long resets() {
    return resets.get();
  }

  /** New connections reset at once because the proxy was {@link #cut()}. */
  public int refused() {
    return refused.get();
  }

  /** Connections open through the proxy now. */
  public int openLinks() {
    return links.size();
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    for (Link link : links) {
      link.reset();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      accepted.incrementAndGet();
      if (refusing) {
        refused.incrementAndGet();
        rst(client);
        continue;
      }
      Link link = new Link(client);
      links.add(link);
      if (blackhole) {
        link.swallow(); // connected to nothing: never answers
        continue;
      }
      try {
        Socket upstream = new Socket();
        upstream.connect(target, 5_000);
        link.connect(upstream);
      } catch (IOException e) {
        link.reset();
        continue;
      }
      if (refusing && link.reset()) {
        // cut() ran between the check above and add(): it may have missed this link.
        refused.incrementAndGet();
      }
    }
  }

  /** One proxied client connection. */
  private final class Link {
    private final Socket client;
    private final CountDownLatch gate; // the lease gate when this link was opened, or null
    private final List<Thread> threads = new ArrayList<>();
    private final ServerMessages answers = new ServerMessages();
    private volatile Socket upstream;
    private boolean gone; // guarded by this
    private boolean lease; // the up-writer thread only: the startup packet named the lease
    private boolean swallowing; // the down-writer thread only: dropping a write's answer

    Link(Socket client) {
      this.client = client;
      this.gate = leaseGate;
    }

    synchronized void connect(Socket upstream) throws IOException {
      this.upstream = upstream;
      pump(client.getInputStream(), upstream.getOutputStream(), false, "up");
      pump(upstream.getInputStream(), client.getOutputStream(), true, "down");
    }

    synchronized void swallow() {
      try {
        pump(client.getInputStream(), OutputStream.nullOutputStream(), false, "swallow");
      } catch (IOException e) {
        reset();
      }
    }

    /** Resets both sides; false if this link was gone already. */
    boolean reset() {
      return end(true);
    }

    /** Closes both sides (FIN); false if this link was gone already. */
    boolean close() {
      return end(false);
    }

    private synchronized boolean end(boolean rst) {
      if (gone) {
        return false;
      }
      gone = true;
      links.remove(this);
      for (Thread t : threads) {
        if (t != Thread.currentThread()) {
          t.interrupt();
        }
      }
      shut(client, rst);
      if (upstream != null) {
        shut(upstream, rst);
      }
      return true;
    }

    private void pump(InputStream in, OutputStream out, boolean isResponse, String name) {
      BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
      Thread reader =
          new Thread(
              () -> {
                byte[] buffer = new byte[16 * 1024];
                try {
                  int n;
                  while ((n = in.read(buffer)) != -1) {
                    if (blackhole) {
                      continue; // dropped
                    }
                    long delay = latencyNanos + (isResponse ? responseLatencyNanos : 0);
                    queue.add(new Chunk(System.nanoTime() + delay, Arrays.copyOf(buffer, n)));
                  }
                } catch (IOException e) {
                  // Socket closed: end of this direction.
                }
                queue.add(Chunk.END);
              },
              "tcp-proxy-" + name + "-read");
      Thread writer =
          new Thread(
              () -> {
                try {
                  while (true) {
                    Chunk chunk = queue.take();
                    if (chunk == Chunk.END) {
                      break;
                    }
                    long wait;
                    while ((wait = chunk.releaseAtNanos - System.nanoTime()) > 0) {
                      TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    synchronized (silence) {
                      while (silent) {
                        silence.wait();
                      }
                    }
                    if (blackhole) {
                      continue; // dropped
                    }
                    if (isResponse) {
                      if (loseIfWriteAnswer(chunk.bytes)) {
                        return;
                      }
                      if (swallowing) {
                        continue;
                      }
                    } else {
                      holdIfLeaseStart(chunk.bytes);
                    }
                    out.write(chunk.bytes);
                    out.flush();
                  }
                } catch (IOException | InterruptedException e) {
                  // Closed or interrupted: fall through to close the link.
                }
                close();
              },
              "tcp-proxy-" + name + "-write");
      reader.setDaemon(true);
      writer.setDaemon(true);
      threads.add(reader);
      threads.add(writer);
      reader.start();
      writer.start();
    }

    /** Up direction: holds the first statement (Parse or Query) of a gated lease connection. */
    private void holdIfLeaseStart(byte[] bytes) throws InterruptedException {
      if (gate == null || gate.getCount() == 0 || bytes.length == 0) {
        return;
      }
      if (!lease) {
        lease = Bytes.indexOf(bytes, LEASE_APPLICATION) >= 0;
        return;
      }
      if (bytes[0] == 'P' || bytes[0] == 'Q') {
        synchronized (heldMonitor) {
          heldLeaseStarts++;
          heldMonitor.notifyAll();
        }
        try {
          gate.await();
        } finally {
          synchronized (heldMonitor) {
            heldLeaseStarts--;
          }
        }
      }
    }

    /**
     * Down direction: starts swallowing at an armed write's answer; true once the {@code
     * ReadyForQuery} after it came (the write committed), after closing the link.
     */
    private boolean loseIfWriteAnswer(byte[] bytes) {
      boolean readyAfterLoss = false;
      for (ServerMessages.Message m : answers.feed(bytes)) {
        if (!swallowing
            && (m.type() == 'C' && m.tag().startsWith("INSERT") || admits(m))
            && loseNextWrite.compareAndSet(true, false)) {
          swallowing = true;
        } else if (swallowing && m.type() == 'Z') {
          readyAfterLoss = true;
        }
      }
      if (readyAfterLoss) {
        // Committed on the server; the client never hears about it.
        responsesLost.incrementAndGet();
        close();
      }
      return readyAfterLoss;
    }
  }

  /** A data row whose first column is {@code allowed}: the quota decision admitted. */
  private static boolean admits(ServerMessages.Message m) {
    // DataRow body: int16 column count, int32 length of the first column, then its bytes.
    String body = m.tag();
    return m.type() == 'D' && body.length() >= 6 && body.startsWith("allowed", 6);
  }

  /** Splits the server→client byte stream into protocol messages (type byte + int32 length). */
  static final class ServerMessages {
    record Message(char type, String tag) {}

    private final byte[] header = new byte[5];
    private int headerFill;
    private long bodyRemaining = -1;
    private char type;
    private final StringBuilder tag = new StringBuilder();

    List<Message> feed(byte[] bytes) {
      List<Message> done = new ArrayList<>();
      int i = 0;
      while (i < bytes.length) {
        if (bodyRemaining < 0) {
          header[headerFill++] = bytes[i++];
          if (headerFill == 5) {
            type = (char) (header[0] & 0xff);
            long length =
                ((header[1] & 0xffL) << 24)
                    | ((header[2] & 0xffL) << 16)
                    | ((header[3] & 0xffL) << 8)
                    | (header[4] & 0xffL);
            bodyRemaining = length - 4;
            headerFill = 0;
            tag.setLength(0);
            if (bodyRemaining == 0) {
              done.add(new Message(type, ""));
              bodyRemaining = -1;
            }
          }
        } else {
          int take = (int) Math.min(bodyRemaining, bytes.length - i);
          if (type == 'C') {
            tag.append(new String(bytes, i, take, StandardCharsets.US_ASCII));
          } else if (type == 'D' && tag.length() < 64) {
            // Only the start of a data row: its first column (see admits).
            int keep = Math.min(take, 64 - tag.length());
            tag.append(new String(bytes, i, keep, StandardCharsets.ISO_8859_1));
          }
          i += take;
          bodyRemaining -= take;
          if (bodyRemaining == 0) {
            done.add(
                new Message(type, type == 'C' ? tag.toString().replace("\0", "") : tag.toString()));
            bodyRemaining = -1;
          }
        }
      }
      return done;
    }
  }

  private record Chunk(long releaseAtNanos, byte[] bytes) {
    static final Chunk END = new Chunk(0, new byte[0]);
  }

  /** Closes with an RST instead of a FIN: the peer sees "connection reset". */
  private static void rst(Socket s) {
    shut(s, true);
  }

  private static void shut(Socket s, boolean rst) {
    if (rst) {
      try {
        s.setSoLinger(true, 0);
      } catch (IOException e) {
        // Not connected any more; close anyway.
      }
    }
    try {
      s.close();
    } catch (IOException e) {
      // Closed already.
    }
  }
}
