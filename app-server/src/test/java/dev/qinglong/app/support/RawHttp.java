package dev.qinglong.app.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * HTTP/1.1 written byte for byte on a socket: no client normalises the path, drops a duplicate
 * header or refuses a control character first. One request per connection ({@code Connection:
 * close}); the whole response is read (chunked bodies are decoded).
 */
public final class RawHttp {
  private final int port;

  public RawHttp(int port) {
    this.port = port;
  }

  /** A response as it came off the wire. {@code status} is -1 if the server sent nothing. */
  public record Response(int status, List<String[]> headers, String body) {
    public Optional<String> header(String name) {
      for (String[] h : headers) {
        if (h[0].equalsIgnoreCase(name)) {
          return Optional.of(h[1]);
        }
      }
      return Optional.empty();
    }

    public String contentType() {
      return header("Content-Type").orElse("");
    }

    /** Every header line and the body, for searching the whole response. */
    public String all() {
      StringBuilder out = new StringBuilder();
      for (String[] h : headers) {
        out.append(h[0]).append(": ").append(h[1]).append('\n');
      }
      return out.append('\n').append(body).toString();
    }
  }

  /**
   * Sends {@code head} (request line and header lines, each without the final CRLF; this adds
   * {@code Host} and {@code Connection: close} unless present) and {@code body} as is.
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
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(text.toString().getBytes(StandardCharsets.UTF_8));
        if (body != null) {
          out.write(body);
        }
        out.flush();
      } catch (SocketException e) {
        // The server may answer and close before it has read all of a body it refuses.
      }
      return read(socket.getInputStream());
    } catch (IOException e) {
      return new Response(-1, List.of(), "");
    }
  }

  /** A request with {@code Authorization: Bearer token} (if any) and a JSON-typed body. */
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

  public Response request(String method, String path, String token, String jsonBody) {
    return request(
        method,
        path,
        token,
        jsonBody == null ? null : "application/json",
        jsonBody == null ? null : jsonBody.getBytes(StandardCharsets.UTF_8));
  }

  private static Response read(InputStream in) throws IOException {
    byte[] all;
    try {
      all = in.readAllBytes();
    } catch (SocketException e) {
      return new Response(-1, List.of(), "");
    }
    int end = indexOf(all, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    if (end < 0) {
      return new Response(-1, List.of(), new String(all, StandardCharsets.ISO_8859_1));
    }
    String[] lines = new String(all, 0, end, StandardCharsets.ISO_8859_1).split("\r\n");
    String[] status = lines[0].split(" ");
    int code = status.length > 1 ? Integer.parseInt(status[1]) : -1;
    List<String[]> headers = new ArrayList<>();
    boolean chunked = false;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        String name = lines[i].substring(0, colon).trim();
        String value = lines[i].substring(colon + 1).trim();
        headers.add(new String[] {name, value});
        chunked |=
            name.equalsIgnoreCase("Transfer-Encoding")
                && value.toLowerCase(Locale.ROOT).contains("chunked");
      }
    }
    byte[] body = java.util.Arrays.copyOfRange(all, end + 4, all.length);
    if (chunked) {
      body = dechunk(body);
    }
    return new Response(code, headers, new String(body, StandardCharsets.UTF_8));
  }

  private static byte[] dechunk(byte[] in) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int i = 0;
    while (i < in.length) {
      int eol = indexOf(in, "\r\n".getBytes(StandardCharsets.ISO_8859_1), i);
      if (eol < 0) {
        break;
      }
      String size = new String(in, i, eol - i, StandardCharsets.ISO_8859_1).split(";")[0].trim();
      int n;
      try {
        n = Integer.parseInt(size, 16);
      } catch (NumberFormatException e) {
        break;
      }
      if (n == 0) {
        break;
      }
      int start = eol + 2;
      out.write(in, start, Math.min(n, in.length - start));
      i = start + n + 2;
    }
    return out.toByteArray();
  }

  private static int indexOf(byte[] data, byte[] pattern) {
    return indexOf(data, pattern, 0);
  }

  private static int indexOf(byte[] data, byte[] pattern, int from) {
    outer:
    for (int i = from; i <= data.length - pattern.length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (data[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
