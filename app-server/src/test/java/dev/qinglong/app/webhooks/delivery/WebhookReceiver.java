package dev.qinglong.app.webhooks.delivery;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A local webhook receiver for tests (JDK HTTP server on 127.0.0.1): records every request and
 * answers the statuses queued for a path with {@link #respond}, then 204. {@code /redirect} answers
 * 302 to {@code /elsewhere}; a path starting with {@code /hold} that has no status queued waits on
 * {@link #release()} before answering.
 */
public final class WebhookReceiver implements AutoCloseable {
  /** One received request. */
  public record Received(String path, Map<String, List<String>> headers, String body) {
    public String header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null || v.isEmpty() ? null : v.get(0);
    }

    /** Headers as the Standard Webhooks verifier takes them. */
    public Map<String, List<String>> webhookHeaders() {
      return Map.of(
          "webhook-id", List.of(header("webhook-id")),
          "webhook-timestamp", List.of(header("webhook-timestamp")),
          "webhook-signature", List.of(header("webhook-signature")));
    }
  }

  private final HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();
  private final Map<String, Deque<Integer>> statuses =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final CountDownLatch hold = new CountDownLatch(1);

  public WebhookReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body;
      try (InputStream in = exchange.getRequestBody()) {
        body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      Map<String, List<String>> headers =
          exchange.getRequestHeaders().entrySet().stream()
              .collect(
                  Collectors.toMap(
                      e -> e.getKey().toLowerCase(Locale.ROOT),
                      e -> new ArrayList<>(e.getValue())));
      String path = exchange.getRequestURI().getPath();
      received.add(new Received(path, headers, body));
      if (path.equals("/redirect")) {
        exchange.getResponseHeaders().add("Location", url("/elsewhere").toString());
        exchange.sendResponseHeaders(302, -1);
        return;
      }
      Deque<Integer> queued = statuses.get(path);
      Integer status = queued == null ? null : queued.poll();
      if (status == null && path.startsWith("/hold")) {
        try {
          hold.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      exchange.sendResponseHeaders(status == null ? 204 : status, -1);
    }
  }

  /** Queues statuses for the next requests to {@code path}. */
  public void respond(String path, int... codes) {
    Deque<Integer> queue = statuses.computeIfAbsent(path, k -> new ConcurrentLinkedDeque<>());
    for (int c : codes) {
      queue.add(c);
    }
  }

  /** Lets requests to /hold… answer (for good). */
  public void release() {
    hold.countDown();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public URI url(String path) {
    return URI.create("http://127.0.0.1:" + port() + path);
  }

  public List<Received> received() {
    return List.copyOf(received);
  }

  @Override
  public void close() {
    release();
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
