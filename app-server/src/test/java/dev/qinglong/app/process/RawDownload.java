package dev.qinglong.app.process;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One download over a plain socket, so the test sees every byte when it arrives and a cut
 * connection as it happens: counts body bytes into {@link #received} and stamps the last one.
 */
final class RawDownload implements Runnable {
  final AtomicLong received = new AtomicLong();
  volatile long lastByteNanos;
  volatile int status = -1;
  volatile long contentLength = -1;
  volatile boolean complete;
  volatile String failure;
  private final int port;
  private final String path;
  private final String token;
  private volatile Socket socket;
  volatile int readTimeoutMillis = 20_000;

  RawDownload(int port, String path, String token) {
    this.port = port;
    this.path = path;
    this.token = token;
  }

  Thread startThread() {
    Thread t = new Thread(this, "download-" + port);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Aborts the download from the client side (the server sees the connection closed). */
  void abort() {
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
    try (Socket s = new Socket("127.0.0.1", port)) {
      socket = s;
      s.setSoTimeout(readTimeoutMillis);
      s.setReceiveBufferSize(16 * 1024);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET "
                  + path
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                  + token
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
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
