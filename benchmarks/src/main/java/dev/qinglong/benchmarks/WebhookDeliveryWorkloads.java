package dev.qinglong.benchmarks;

import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The delivery rate of the one active webhook worker against a local receiver (a JDK {@link
 * HttpServer} on 127.0.0.1 that answers 204 at once): the app process (SQLite, role {@code all},
 * {@code qinglong.webhooks.allow-insecure-targets=true}) has one endpoint in each of {@value
 * #PROJECTS} Projects, each subscribed to {@code webhook.test}. One call is one event: {@code POST
 * …/webhooks/{id}/test} (the event row is written in the request's transaction), then the wait
 * until the receiver has it. So the rate is deliveries per second and the latency columns are from
 * the event's creation (the enqueue request) to its receipt, the worker's claim loop included.
 *
 * <p>Each client thread has its own endpoint and at most one event outstanding: the worker's limits
 * (16 attempts at once, 4 per Project, 2 per endpoint) are never the reason an event waits, so the
 * figure is the worker's own pace (its claim ticks, the claim and record statements, signing and
 * the HTTP attempt), not a deferral.
 */
final class WebhookDeliveryWorkloads {
  static final int PROJECTS = 16;
  private static final long RECEIPT_TIMEOUT_SECONDS = 120;

  private WebhookDeliveryWorkloads() {}

  static List<Workload> all() {
    return List.of(new AppSqlite());
  }

  static final class AppSqlite implements Workload {
    private HttpServer receiver;
    private ExecutorService receiverThreads;
    private BenchApp app;
    private Http http;
    private final List<String> testPaths = new ArrayList<>();
    // An event id's future completes when the receiver has it (whichever of the enqueue answer and
    // the receipt comes first creates it).
    private final Map<String, CompletableFuture<Void>> receipts = new ConcurrentHashMap<>();
    private final LongAdder received = new LongAdder();
    private final LongAdder unsigned = new LongAdder();
    private final LongAdder repeated = new LongAdder();
    private final Map<String, Boolean> seen = new ConcurrentHashMap<>();

    @Override
    public String scenario() {
      return "webhook-delivery";
    }

    @Override
    public String system() {
      return "app-sqlite-" + PROJECTS + "-endpoints";
    }

    @Override
    public int threads() {
      return PROJECTS;
    }

    @Override
    public Phases phases(Mode mode) {
      return Phases.timed(mode, 2, 3, 10, 30);
    }

    @Override
    public void setUp(Mode mode) throws Exception {
      receiverThreads = Executors.newFixedThreadPool(8);
      receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
      receiver.setExecutor(receiverThreads);
      receiver.createContext(
          "/hook",
          exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
              in.readAllBytes();
            }
            String id = exchange.getRequestHeaders().getFirst("webhook-id");
            if (exchange.getRequestHeaders().getFirst("webhook-signature") == null) {
              unsigned.increment();
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
            if (id != null) {
              received.increment();
              if (seen.putIfAbsent(id, Boolean.TRUE) != null) {
                repeated.increment();
              }
              receipts.computeIfAbsent(id, k -> new CompletableFuture<>()).complete(null);
            }
          });
      receiver.start();
      app =
          BenchApp.start(
              List.of(),
              List.of(
                  "--qinglong.webhooks.allow-insecure-targets=true",
                  "--qinglong.shield.max-concurrent-requests-per-client=64",
                  "--qinglong.shield.max-concurrent-requests-per-principal=64"));
      http = new Http(app);
      String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
      for (int p = 0; p < PROJECTS; p++) {
        String path = "/v1/projects/bench-" + p + "/webhooks/hook";
        http.expect(
            "PUT", "admin", path, "{\"url\":\"" + url + "\",\"events\":[\"webhook.test\"]}", 201);
        testPaths.add(path + "/test");
      }
    }

    @Override
    public String call(int thread, long n) throws Exception {
      HttpResponse<String> r = http.send("POST", "admin", testPaths.get(thread), "");
      if (r.statusCode() != 200) {
        throw Http.unexpected("webhook test", r);
      }
      String id = Http.JSON.readTree(r.body()).get("deliveryId").asString();
      CompletableFuture<Void> receipt =
          receipts.computeIfAbsent(id, k -> new CompletableFuture<>());
      receipt.get(RECEIPT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      receipts.remove(id);
      return "delivered";
    }

    @Override
    public long appCpuNanos() {
      return app == null ? -1 : app.cpuNanos();
    }

    @Override
    public Map<String, Object> notes() {
      Map<String, Object> notes = new LinkedHashMap<>();
      notes.put("endpoints", PROJECTS);
      notes.put("projects", PROJECTS);
      notes.put("outstandingPerEndpoint", 1);
      notes.put("receiver", "JDK HttpServer on 127.0.0.1, 204 at once");
      notes.put("received", received.sum());
      notes.put("receivedAgain", repeated.sum());
      notes.put("receivedUnsigned", unsigned.sum());
      return notes;
    }

    @Override
    public void close() throws Exception {
      Workload.closeInOrder(
          app,
          () -> {
            if (receiver != null) {
              receiver.stop(0);
            }
          },
          () -> {
            if (receiverThreads != null) {
              receiverThreads.shutdownNow();
            }
          });
    }
  }
}
