package dev.qinglong.benchmarks;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import tools.jackson.databind.JsonNode;

/**
 * Artifact downloads (docs/downloads.md): a plain file-to-socket copy ({@link
 * FileChannel#transferTo}) of the same bytes as the baseline, the app's download route without a
 * rate limit, and with a process rate limit, whose achieved rate is compared with the configured
 * one (the throttle's error). One client thread reads each body to the end; the rate is in bytes
 * per second.
 */
final class DownloadWorkloads {
  private DownloadWorkloads() {}

  static List<Workload> all() {
    return List.of(new PlainCopy(), new AppDownload(false), new AppDownload(true));
  }

  static long artifactBytes(Workload.Mode mode) {
    return (mode.quick() ? 32L : 128L) << 20;
  }

  /** The throttled rate: every download takes about 2 s (quick) or 4 s (full). */
  static long throttleBytesPerSecond(Workload.Mode mode) {
    return (mode.quick() ? 16L : 32L) << 20;
  }

  /** A file of random bytes. */
  static Path artifact(long bytes) throws Exception {
    Path file = Files.createTempFile("qinglong-bench-artifact", ".bin");
    byte[] chunk = new byte[1 << 20];
    Random random = new Random(42);
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long written = 0; written < bytes; written += chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk);
      }
    }
    return file;
  }

  static String digest(Path file) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[1 << 20];
      for (int r; (r = in.read(buf)) > 0; ) {
        sha.update(buf, 0, r);
      }
    }
    return "sha256:" + HexFormat.of().formatHex(sha.digest());
  }

  /** Reads a stream to its end; returns the byte count. */
  static long drain(InputStream in) throws Exception {
    byte[] buf = new byte[64 << 10];
    long total = 0;
    for (int r; (r = in.read(buf)) >= 0; ) {
      total += r;
    }
    return total;
  }

  abstract static class Download implements Workload {
    long bytes;
    Path file;

    @Override
    public String scenario() {
      return "download";
    }

    @Override
    public int threads() {
      return 1;
    }

    @Override
    public long unitsPerCall() {
      return bytes;
    }

    @Override
    public String unit() {
      return "bytes";
    }

    String check(long read) {
      if (read != bytes) {
        throw new IllegalStateException("read " + read + " bytes of " + bytes);
      }
      return "complete";
    }

    @Override
    public Map<String, Object> notes() {
      Map<String, Object> notes = new LinkedHashMap<>();
      notes.put("artifactBytes", bytes);
      return notes;
    }

    void deleteFile() throws Exception {
      if (file != null) {
        Files.deleteIfExists(file);
      }
    }
  }

  /** The same file served by {@code transferTo} to each accepted socket: the floor for the app. */
  static final class PlainCopy extends Download {
    private ServerSocket server;
    private Thread acceptor;

    @Override
    public String system() {
      return "plain-file-to-socket";
    }

    @Override
    public Phases phases(Mode mode) {
      return Phases.timed(mode, 1, 3, 5, 20);
    }

    @Override
    public void setUp(Mode mode) throws Exception {
      bytes = artifactBytes(mode);
      file = artifact(bytes);
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try (Socket s = server.accept();
                      FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                    var out = Channels.newChannel(s.getOutputStream());
                    for (long pos = 0; pos < bytes; ) {
                      pos += ch.transferTo(pos, bytes - pos, out);
                    }
                  } catch (Exception e) {
                    // closed at the end of the workload
                  }
                }
              },
              "plain-copy");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    @Override
    public String call(int thread, long n) throws Exception {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
        return check(drain(s.getInputStream()));
      }
    }

    @Override
    public void close() throws Exception {
      Workload.closeInOrder(server, this::deleteFile);
    }
  }

  /**
   * The app's download route ({@code GET …/artifacts/{digest}}) on SQLite, dev tokens, the artifact
   * uploaded, proposed, approved and published through the API first.
   */
  static final class AppDownload extends Download {
    private final boolean throttled;
    private long rate;
    private BenchApp app;
    private Http http;
    private String path;

    AppDownload(boolean throttled) {
      this.throttled = throttled;
    }

    @Override
    public String system() {
      return throttled ? "http-throttled" : "http";
    }

    @Override
    public Phases phases(Mode mode) {
      return throttled
          ? (mode.quick() ? Phases.counted(1, 2) : Phases.counted(1, 5))
          : Phases.timed(mode, 1, 3, 5, 20);
    }

    @Override
    public Map<String, Object> notes() {
      Map<String, Object> notes = super.notes();
      notes.put("rateLimitBytesPerSecond", throttled ? rate : 0);
      notes.put("store", "sqlite");
      return notes;
    }

    @Override
    public void setUp(Mode mode) throws Exception {
      bytes = artifactBytes(mode);
      rate = throttleBytesPerSecond(mode);
      file = artifact(bytes);
      String digest = digest(file);
      app =
          BenchApp.start(
              List.of(),
              List.of("--qinglong.downloads.rate-bytes-per-second=" + (throttled ? rate : 0)));
      http = new Http(app);
      path = "/v1/projects/demo/artifacts/" + digest;
      HttpResponse<String> up =
          http.client()
              .send(
                  http.request("alice", path)
                      .header("Content-Type", "application/octet-stream")
                      .PUT(HttpRequest.BodyPublishers.ofFile(file))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      if (up.statusCode() != 201) {
        throw Http.unexpected("upload", up);
      }
      JsonNode proposal =
          http.expect(
              "POST",
              "alice",
              "/v1/projects/demo/plugin-packages/proposals",
              "{\"actionRef\":\"dl\",\"action\":{\"type\":\"install\",\"package\":\"bench\","
                  + "\"version\":\"1\",\"artifactDigest\":\""
                  + digest
                  + "\"}}",
              201);
      http.expect(
          "POST",
          "bob",
          "/v1/projects/demo/plugin-packages/approvals/"
              + proposal.get("approvalId").asString()
              + "/decisions",
          "{\"decisionId\":\"d1\",\"decision\":\"approve\",\"actionDigest\":\""
              + proposal.get("actionDigest").asString()
              + "\"}",
          200);
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (true) {
        HttpResponse<Void> head =
            http.client()
                .send(
                    http.request("alice", path)
                        .method("HEAD", HttpRequest.BodyPublishers.noBody())
                        .build(),
                    HttpResponse.BodyHandlers.discarding());
        if (head.statusCode() == 200) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("artifact not published within 60 s: " + head);
        }
        Thread.sleep(250);
      }
    }

    /**
     * One {@code GET} on a fresh connection, read from a plain socket exactly like the baseline's
     * (64 KiB reads), so both systems pay the same client cost. The JDK {@code HttpClient} is not
     * used here: on this machine it read only about half of what a plain socket reads from the same
     * {@code transferTo} server, so it, not the app, bounded the figure.
     */
    @Override
    public String call(int thread, long n) throws Exception {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), app.port())) {
        OutputStream out = s.getOutputStream();
        out.write(
            ("GET "
                    + path
                    + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + app.token("alice")
                    + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = s.getInputStream();
        String head = readHead(in);
        if (!head.startsWith("HTTP/1.1 200 ")) {
          throw new IllegalStateException("download answered " + head.lines().findFirst());
        }
        long length = contentLength(head);
        if (length != bytes) {
          throw new IllegalStateException("Content-Length " + length + ", expected " + bytes);
        }
        return check(drain(in));
      }
    }

    /** The status line and headers, up to the blank line, read byte by byte (no read-ahead). */
    static String readHead(InputStream in) throws Exception {
      StringBuilder head = new StringBuilder();
      int matched = 0;
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          throw new IllegalStateException("connection closed in the headers: " + head);
        }
        head.append((char) b);
        matched = (b == '\r' || b == '\n') ? matched + 1 : 0;
      }
      return head.toString();
    }

    static long contentLength(String head) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
          return Long.parseLong(line.substring(colon + 1).trim());
        }
      }
      throw new IllegalStateException("no Content-Length: " + head);
    }

    @Override
    public void close() throws Exception {
      Workload.closeInOrder(app, this::deleteFile);
    }
  }
}
