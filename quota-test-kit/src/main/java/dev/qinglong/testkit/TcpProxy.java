package dev.qinglong.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy between a client and PostgreSQL, to break the network on purpose: add
 * latency to the answers, swallow traffic without closing (a silent partition), or cut every
 * connection and refuse new ones. Plain sockets, two threads per direction (a reader that stamps
 * each chunk with its release time and a writer that waits for it), so latency delays bytes without
 * reordering them.
 *
 * <p>It can also hold the start of a download lease: while {@link #holdLeaseStarts()} is on, a new
 * connection whose startup packet names the application {@code qinglong-download-lease} logs in
 * normally, but its first statement is held until {@link #releaseLeaseStarts()}. So a test can let
 * a process reach its lease step, change the world (stop or freeze the slot's old holder), and only
 * then let the lease look at the slot. The hold must stay below the lease connection's socket
 * timeout (20 s).
 */
public final class TcpProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final ServerSocket server;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private final Thread acceptor;
  private volatile long responseLatencyNanos;
  private volatile boolean silent;
  private volatile boolean refusing;
  private volatile boolean closed;
  private volatile CountDownLatch
      leaseGate; // non-null: hold new lease connections' first statement
  private final AtomicInteger heldLeaseStarts = new AtomicInteger();
  private static final byte[] LEASE_APPLICATION =
      "qinglong-download-lease".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.target = new InetSocketAddress(targetHost, targetPort);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + server.getLocalPort());
    this.acceptor.setDaemon(true);
    this.acceptor.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Delays every byte from PostgreSQL to the client by {@code latency} (from now on). */
  public void setResponseLatency(Duration latency) {
    responseLatencyNanos = latency.toNanos();
  }

  /** Swallows nothing but forwards nothing either while on: bytes are held, sockets stay open. */
  public void setSilent(boolean on) {
    silent = on;
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
    while (heldLeaseStarts.get() == 0) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
  }

  /** Closes every open connection and refuses (accepts and closes at once) new ones. */
  public void cut() {
    refusing = true;
    for (Link link : links) {
      link.close();
    }
  }

  /** Lets new connections through again after {@link #cut()}. */
  public void heal() {
    refusing = false;
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    cut();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      if (refusing) {
        closeQuietly(client);
        continue;
      }
      try {
        Socket upstream = new Socket();
        upstream.connect(target, 5_000);
        Link link = new Link(client, upstream);
        links.add(link);
        link.start();
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private final class Link {
    private final Socket client;
    private final Socket upstream;
    private final CountDownLatch gate; // the lease gate when this link was opened, or null
    private boolean lease; // the up-writer thread only: the startup packet named the lease

    Link(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
      this.gate = leaseGate;
    }

    /** Up direction: holds the first statement (Parse or Query) of a gated lease connection. */
    private void holdIfLeaseStart(byte[] bytes) throws InterruptedException {
      if (gate == null || gate.getCount() == 0 || bytes.length == 0) {
        return;
      }
      if (!lease) {
        lease = indexOf(bytes, LEASE_APPLICATION) >= 0;
        return;
      }
      if (bytes[0] == 'P' || bytes[0] == 'Q') {
        heldLeaseStarts.incrementAndGet();
        try {
          gate.await();
        } finally {
          heldLeaseStarts.decrementAndGet();
        }
      }
    }

    void start() throws IOException {
      pump(client.getInputStream(), upstream.getOutputStream(), false, "up");
      pump(upstream.getInputStream(), client.getOutputStream(), true, "down");
    }

    void close() {
      closeQuietly(client);
      closeQuietly(upstream);
      links.remove(this);
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
                    long delay = isResponse ? responseLatencyNanos : 0;
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
                    while ((wait = chunk.releaseAtNanos - System.nanoTime()) > 0 || silent) {
                      TimeUnit.NANOSECONDS.sleep(
                          silent ? 20_000_000L : Math.min(wait, 50_000_000L));
                    }
                    if (!isResponse) {
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
      reader.start();
      writer.start();
    }
  }

  private record Chunk(long releaseAtNanos, byte[] bytes) {
    static final Chunk END = new Chunk(0, new byte[0]);
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Already closed.
    }
  }
}
