package dev.qinglong.app.security;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Raw HTTP/1.1 over a socket bound to a chosen loopback source address (127.0.0.x). */
final class RawClient {
  private RawClient() {}

  /** Connects from {@code source} to the app and writes {@code head} (and nothing more). */
  static Socket open(String source, int port, String head, int receiveBuffer) throws IOException {
    Socket s = new Socket();
    if (receiveBuffer > 0) {
      s.setReceiveBufferSize(receiveBuffer);
    }
    s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return s;
  }

  /**
   * A POST that declares a body and sends one byte of it: the request stays in flight, past
   * authentication, until the socket closes.
   */
  static Socket holdPost(String source, int port, String path, String token, String forwardedFor)
      throws IOException {
    return open(
        source,
        port,
        "POST "
            + path
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
            + (forwardedFor == null ? "" : "X-Forwarded-For: " + forwardedFor + "\r\n")
            + "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{",
        0);
  }

  /** A complete GET; returns the raw response. */
  static String get(String source, int port, String path, String token, String forwardedFor)
      throws IOException {
    try (Socket s =
        open(
            source,
            port,
            "GET "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + (token == null ? "" : "Authorization: Bearer " + token + "\r\n")
                + (forwardedFor == null ? "" : "X-Forwarded-For: " + forwardedFor + "\r\n")
                + "\r\n",
            0)) {
      s.setSoTimeout(10_000);
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Whether the server has not answered on {@code socket} within {@code wait}. */
  static boolean unanswered(Socket socket, Duration wait) throws IOException {
    socket.setSoTimeout((int) wait.toMillis());
    try {
      InputStream in = socket.getInputStream();
      in.read();
      return false;
    } catch (SocketTimeoutException e) {
      return true;
    }
  }

  /** Status line code of a raw response, e.g. 429. */
  static int status(String raw) {
    return raw.startsWith("HTTP/1.1 ") ? Integer.parseInt(raw.substring(9, 12)) : -1;
  }
}
