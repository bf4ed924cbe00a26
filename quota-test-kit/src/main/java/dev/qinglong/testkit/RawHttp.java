package dev.qinglong.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * HTTP/1.1 written byte for byte on a socket to 127.0.0.1, for requests a client library would
 * normalise or refuse: raw paths, repeated headers, control characters, bodies that never end. The
 * response is read as the server frames it ({@code Content-Length}, chunked, or up to the close;
 * none for a {@code HEAD}). A {@link Download} streams one body instead, counting bytes as they
 * come.
 *
 * <p>Hand-written on purpose: every HTTP client (the JDK's, Apache's, OkHttp) exists to send
 * well-formed requests, and refuses or rewrites exactly the ones these tests are about.
 */
public final class RawHttp {
  private static final int TIMEOUT_MILLIS = 20_000;

  private final int port;

  public RawHttp(int port) {
    this.port = port;
  }

  /** One header line of a response. */
  public record Header(String name, String value) {
    @Override
    public String toString() {
      return name + ": " + value;
    }
  }

  /** A response as it came off the wire. {@code status} is -1 if the server sent nothing. */
  public record Response(int status, List<Header> headers, String body) {
    static final Response NONE = new Response(-1, List.of(), "");

    /** The first header of that name (any case). */
    public Optional<String> header(String name) {
      return headers.stream()
          .filter(h -> h.name().equalsIgnoreCase(name))
          .map(Header::value)
          .findFirst();
    }

    public String contentType() {
      return header("Content-Type").orElse("");
    }

    /** Every header line and the body, for searching the whole response. */
    public String all() {
      StringBuilder out = new StringBuilder();
      for (Header h : headers) {
        out.append(h).append('\n');
      }
      return out.append('\n').append(body).toString();
    }
  }

  /**
   * Sends {@code head} (request line and header lines, each without the final CRLF; this adds
   * {@code Host} and {@code Connection: close} unless present) and {@code body} as is. A server
   * that sends nothing, or resets the connection, gives status -1.
   */
  public Response send(List<String> head, byte[] body) {
    StringBuilder text = new StringBuilder();
    boolean host = false;
    for (String line : head) {
      text.append(line).append("\r\n");
      host |= line.toLowerCase(Locale.ROOT).startsWith("host:");
    }
    if (!host) {
      text.append("Host: 127.0.0.1\r\n");
    }
    text.append("Connection: close\r\n\r\n");
    try {
      return exchange(port, text.toString(), body, TIMEOUT_MILLIS, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return Response.NONE;
    }
  }

  /** A request with {@code Authorization: Bearer token} (if any) and a body of that type. */
  public Response request(
      String method, String path, String token, String contentType, byte[] body) {
    List<String> head = new ArrayList<>();
    head.add(method + " " + path + " HTTP/1.1");
    if (token != null) {
      head.add("Authorization: Bearer " + token);
    }
    if (contentType != null) {
      head.add("Content-Type: " + contentType);
    }
    if (body != null) {
      head.add("Content-Length: " + body.length);
    }
    return send(head, body);
  }

  /** A request with {@code Authorization: Bearer token} (if any) and a JSON body (if any). */
  public Response request(String method, String path, String token, String jsonBody) {
    return request(
        method,
        path,
        token,
        jsonBody == null ? null : "application/json",
        jsonBody == null ? null : jsonBody.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Sends {@code head} exactly (request line and headers, CRLF-terminated, blank line included, in
   * ISO-8859-1) and {@code body}, and reads the answer.
   */
  public static Response exchange(int port, String head, byte[] body) throws IOException {
    return exchange(port, head, body, TIMEOUT_MILLIS, StandardCharsets.ISO_8859_1);
  }

  /**
   * Sends {@code head} and {@code firstBytes} of a body that never ends, and waits up to {@code
   * timeoutMillis} for an answer; throws {@link SocketTimeoutException} if none comes, i.e. if the
   * server waits for the rest of the body before answering.
   */
  public static Response answerBeforeBodyEnds(
      int port, String head, byte[] firstBytes, int timeoutMillis) throws IOException {
    return exchange(port, head, firstBytes, timeoutMillis, StandardCharsets.ISO_8859_1);
  }

  /**
   * Connects {@code socket} (configured by the caller beforehand, e.g. a small receive buffer) to
   * {@code port} on loopback and sends {@code GET path} with {@code token} as Bearer credentials
   * and {@code Connection: close}. The caller reads the answer from the socket at its own pace (a
   * download that stalls, or a client that goes away mid-body).
   */
  public static void sendGet(Socket socket, int port, String path, String token)
      throws IOException {
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    OutputStream out = socket.getOutputStream();
    out.write(
        ("GET "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                + token
                + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** One chunk of a chunked body. */
  public static byte[] chunk(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(data);
    out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  private static Response exchange(
      int port, String head, byte[] body, int timeoutMillis, java.nio.charset.Charset headCharset)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(timeoutMillis);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(head.getBytes(headCharset));
        if (body != null) {
          out.write(body);
        }
        out.flush();
      } catch (IOException e) {
        // The server may answer and close before it has read all of a body it refuses.
      }
      return read(socket.getInputStream(), head.startsWith("HEAD "));
    }
  }

  private static Response read(InputStream in, boolean head) throws IOException {
    String statusLine = line(in);
    String[] parts = statusLine.split(" ");
    if (parts.length < 2) {
      return Response.NONE;
    }
    List<Header> headers = new ArrayList<>();
    long length = -1;
    boolean chunked = false;
    for (String h = line(in); !h.isEmpty(); h = line(in)) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      Header header = new Header(h.substring(0, colon).trim(), h.substring(colon + 1).trim());
      headers.add(header);
      if (header.name().equalsIgnoreCase("Content-Length")) {
        length = Long.parseLong(header.value());
      } else if (header.name().equalsIgnoreCase("Transfer-Encoding")
          && header.value().toLowerCase(Locale.ROOT).contains("chunked")) {
        chunked = true;
      }
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (head) {
      // A HEAD response announces a body it does not send.
    } else if (chunked) {
      for (int size = chunkSize(line(in)); size > 0; size = chunkSize(line(in))) {
        body.writeBytes(in.readNBytes(size));
        line(in);
      }
    } else if (length >= 0) {
      body.writeBytes(in.readNBytes((int) length));
    } else {
      body.writeBytes(in.readAllBytes());
    }
    return new Response(Integer.parseInt(parts[1]), headers, body.toString(StandardCharsets.UTF_8));
  }

  private static int chunkSize(String line) {
    String size = line.split(";")[0].trim();
    return size.isEmpty() ? 0 : Integer.parseInt(size, 16);
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1 && b != '\n') {
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  /**
   * One download (GET with a bearer token) over a plain socket on a thread of its own, so the test
   * sees every byte when it arrives and a cut connection as it happens: counts body bytes into
   * {@link #received} and stamps the last one.
   */
  public static final class Download implements Runnable {
    public final AtomicLong received = new AtomicLong();
    public volatile long lastByteNanos;
    public volatile int status = -1;
    public volatile long contentLength = -1;
    public volatile boolean complete;
    public volatile String failure;
    private final int port;
    private final String path;
    private final String token;
    private volatile Socket socket;
    public volatile int readTimeoutMillis = 20_000;

    public Download(int port, String path, String token) {
      this.port = port;
      this.path = path;
      this.token = token;
    }

    public Thread startThread() {
      Thread t = new Thread(this, "download-" + port);
      t.setDaemon(true);
      t.start();
      return t;
    }

    /** Aborts the download from the client side (the server sees the connection closed). */
    public void abort() {
      Socket s = socket;
      if (s != null) {
        try {
          s.close();
        } catch (IOException e) {
          // Already closed.
        }
      }
    }

    @Override
    public void run() {
      try (Socket s = new Socket()) {
        socket = s;
        s.setSoTimeout(readTimeoutMillis);
        s.setReceiveBufferSize(16 * 1024);
        sendGet(s, port, path, token);
        InputStream in = s.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
          int b = in.read();
          if (b < 0) {
            failure = "closed in headers";
            return;
          }
          head.write(b);
          matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String headers = head.toString(StandardCharsets.US_ASCII);
        status = Integer.parseInt(headers.substring(9, 12));
        for (String line : headers.split("\r\n")) {
          if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
            contentLength = Long.parseLong(line.substring(15).trim());
          }
        }
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) > 0) {
          received.addAndGet(n);
          lastByteNanos = System.nanoTime();
        }
        complete = received.get() == contentLength;
      } catch (SocketTimeoutException e) {
        failure = "read timeout";
      } catch (IOException e) {
        failure = e.toString();
      }
    }
  }
}
