package dev.qinglong.app.security;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/1.1 written byte for byte on a socket: for requests a client library would normalise or
 * refuse (raw paths, repeated headers, bodies that never end).
 */
final class RawHttp {
  private RawHttp() {}

  /** A parsed response: status, header lines and body (as text). */
  record Response(int status, List<String> headers, String body) {
    String header(String name) {
      String prefix = name.toLowerCase(Locale.ROOT) + ":";
      for (String h : headers) {
        if (h.toLowerCase(Locale.ROOT).startsWith(prefix)) {
          return h.substring(prefix.length()).trim();
        }
      }
      return null;
    }

    String contentType() {
      String ct = header("Content-Type");
      return ct == null ? "" : ct;
    }
  }

  /** Sends {@code head} (request line and headers, CRLF-terminated, blank line included). */
  static Response exchange(int port, String head, byte[] body) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.ISO_8859_1));
      if (body != null) {
        out.write(body);
      }
      out.flush();
      return read(socket.getInputStream(), head.startsWith("HEAD "));
    }
  }

  /**
   * Sends {@code head} and {@code firstBytes} of a body that never ends, and waits up to {@code
   * timeoutMillis} for an answer; throws {@link SocketTimeoutException} if none comes, i.e. if the
   * server waits for the rest of the body before answering.
   */
  static Response answerBeforeBodyEnds(int port, String head, byte[] firstBytes, int timeoutMillis)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(timeoutMillis);
      OutputStream out = socket.getOutputStream();
      out.write(head.getBytes(StandardCharsets.ISO_8859_1));
      out.write(firstBytes);
      out.flush();
      return read(socket.getInputStream(), false);
    }
  }

  /** One chunk of a chunked body. */
  static byte[] chunk(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(data);
    out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  private static Response read(InputStream in, boolean head) throws IOException {
    String statusLine = line(in);
    String[] parts = statusLine.split(" ");
    if (parts.length < 2) {
      throw new IOException("no status line: " + statusLine);
    }
    List<String> headers = new ArrayList<>();
    long length = -1;
    boolean chunked = false;
    for (String h = line(in); !h.isEmpty(); h = line(in)) {
      headers.add(h);
      String lower = h.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(h.substring("content-length:".length()).trim());
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (head) {
      // A HEAD response announces a body it does not send.
    } else if (chunked) {
      for (int size = Integer.parseInt(line(in).trim(), 16); size > 0; ) {
        body.writeBytes(in.readNBytes(size));
        line(in);
        size = Integer.parseInt(line(in).trim(), 16);
      }
    } else if (length >= 0) {
      body.writeBytes(in.readNBytes((int) length));
    }
    return new Response(Integer.parseInt(parts[1]), headers, body.toString(StandardCharsets.UTF_8));
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
}
