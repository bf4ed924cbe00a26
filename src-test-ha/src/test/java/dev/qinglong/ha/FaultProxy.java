package dev.qinglong.ha;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between one app instance and the PostgreSQL primary (java.nio channels, a thread per
 * direction). It plays the network in the HA gate:
 *
 * <ul>
 *   <li>{@link #fence()} cuts every open connection and refuses new ones, so the instance cannot
 *       reach the old primary any more; {@link #retarget} then {@link #unfence()} points it at the
 *       new primary.
 *   <li>{@link #loseNextInsertResponse()} lets the next admitting write run and commit, then drops
 *       the server's answer and closes the client's connection: the "response lost after commit" of
 *       ADR 000. The write is an {@code INSERT} ({@code CommandComplete} tag) or the management
 *       quota's one-statement decision, a {@code SELECT} over a data-modifying CTE whose first
 *       column is the outcome: a row whose first column is {@code allowed}. It follows the
 *       PostgreSQL protocol's message framing ({@code sslmode=disable}, so every server message is
 *       type byte + length) and waits for the {@code ReadyForQuery} that follows, which the server
 *       sends only after the implicit transaction committed.
 * </ul>
 */
final class FaultProxy implements AutoCloseable {
  private final String name;
  private final ServerSocketChannel server;
  private final Thread acceptor;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean loseNextInsert = new AtomicBoolean();
  private final AtomicInteger responsesLost = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();
  private volatile InetSocketAddress target;
  private volatile boolean fenced;
  private volatile boolean closed;

  FaultProxy(String name, int targetPort) throws IOException {
    this.name = name;
    this.target = new InetSocketAddress("127.0.0.1", targetPort);
    this.server = ServerSocketChannel.open();
    server.bind(new InetSocketAddress("127.0.0.1", 0));
    this.acceptor = new Thread(this::acceptLoop, "proxy-" + name + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    try {
      return ((InetSocketAddress) server.getLocalAddress()).getPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  int targetPort() {
    return target.getPort();
  }

  /** Cuts every open connection and refuses new ones until {@link #unfence()}. */
  void fence() {
    fenced = true;
    for (Link link : links) {
      link.close();
    }
  }

  void retarget(int port) {
    target = new InetSocketAddress("127.0.0.1", port);
  }

  void unfence() {
    fenced = false;
  }

  /** Arms the loss of the next INSERT's response (after its commit). */
  void loseNextInsertResponse() {
    loseNextInsert.set(true);
  }

  int responsesLost() {
    return responsesLost.get();
  }

  int openLinks() {
    return links.size();
  }

  int refusedWhileFenced() {
    return refused.get();
  }

  private void acceptLoop() {
    while (!closed) {
      SocketChannel client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (fenced) {
        refused.incrementAndGet();
        closeQuietly(client);
        continue;
      }
      SocketChannel upstream;
      try {
        upstream = SocketChannel.open(target);
      } catch (IOException e) {
        closeQuietly(client);
        continue;
      }
      Link link = new Link(client, upstream);
      links.add(link);
      if (fenced) {
        // fence() ran between the check above and add(): it may have missed this link.
        link.close();
        continue;
      }
      link.start();
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (Link link : links) {
      link.close();
    }
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // Already closed by the other side.
    }
  }

  /** One proxied client connection. */
  private final class Link {
    private final SocketChannel client;
    private final SocketChannel upstream;
    private final AtomicBoolean closedLink = new AtomicBoolean();
    private final ServerMessages scanner = new ServerMessages();
    private boolean swallowing; // only touched by the upstream→client thread

    Link(SocketChannel client, SocketChannel upstream) {
      this.client = client;
      this.upstream = upstream;
    }

    void start() {
      Thread up = new Thread(this::clientToServer, "proxy-" + name + "-c2s");
      Thread down = new Thread(this::serverToClient, "proxy-" + name + "-s2c");
      up.setDaemon(true);
      down.setDaemon(true);
      up.start();
      down.start();
    }

    private void clientToServer() {
      ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
      try {
        while (client.read(buf) >= 0) {
          buf.flip();
          while (buf.hasRemaining()) {
            upstream.write(buf);
          }
          buf.clear();
        }
      } catch (IOException e) {
        // Either side went away.
      } finally {
        close();
      }
    }

    private void serverToClient() {
      ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
      try {
        while (upstream.read(buf) >= 0) {
          buf.flip();
          byte[] chunk = new byte[buf.remaining()];
          buf.get(chunk);
          buf.clear();
          boolean readyAfterLoss = false;
          for (ServerMessages.Message m : scanner.feed(chunk)) {
            if (!swallowing
                && (m.type() == 'C' && m.tag().startsWith("INSERT") || admits(m))
                && loseNextInsert.compareAndSet(true, false)) {
              swallowing = true;
            } else if (swallowing && m.type() == 'Z') {
              readyAfterLoss = true;
            }
          }
          if (readyAfterLoss) {
            // Committed on the server; the client never hears about it.
            responsesLost.incrementAndGet();
            close();
            return;
          }
          if (!swallowing) {
            ByteBuffer out = ByteBuffer.wrap(chunk);
            while (out.hasRemaining()) {
              client.write(out);
            }
          }
        }
      } catch (IOException e) {
        // Either side went away.
      } finally {
        close();
      }
    }

    /** A data row whose first column is {@code allowed}: the quota decision admitted. */
    private static boolean admits(ServerMessages.Message m) {
      // DataRow body: int16 column count, int32 length of the first column, then its bytes.
      String body = m.tag();
      return m.type() == 'D' && body.length() >= 6 && body.startsWith("allowed", 6);
    }

    void close() {
      if (closedLink.compareAndSet(false, true)) {
        closeQuietly(client);
        closeQuietly(upstream);
        links.remove(this);
      }
    }
  }

  /** Splits the server→client byte stream into protocol messages (type byte + int32 length). */
  static final class ServerMessages {
    record Message(char type, String tag) {}

    private final byte[] header = new byte[5];
    private int headerFill;
    private long bodyRemaining = -1;
    private char type;
    private final StringBuilder tag = new StringBuilder();

    java.util.List<Message> feed(byte[] bytes) {
      java.util.List<Message> done = new java.util.ArrayList<>();
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
}
