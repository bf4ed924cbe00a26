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
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * The delivery rate of the one active webhook worker against a local receiver (a JDK {@link
 * HttpServer} on 127.0.0.1 that answers 204 at once): the app process (SQLite, role {@code all},
 * {@code qinglong.webhooks.allow-insecure-targets=true}) has one endpoint in each of {@value
 * #PROJECTS} Projects, each subscribed to {@code webhook.test}; an event is enqueued by {@code POST
 * …/webhooks/hook/test} (the event row is written in the request's transaction) and counts as
 * delivered when the receiver has its {@code webhook-id}.
 *
 * <ul>
 *   <li>{@link OneAtATime}: each client thread has its own endpoint and one event outstanding, so
 *       the worker's limits (16 attempts at once, 4 per Project, 2 per endpoint) never hold an
 *       event back: the latency an event sees when the queue is short, the claim loop's tick
 *       included.
 *   <li>{@link Backlog}: batches of events, many per endpoint, enqueued as fast as the API takes
 *       them: the rate of a worker that always has more due than free slots.
 * </ul>
 */
final class WebhookDeliveryWorkloads {
  static final int PROJECTS = 16;
  private static final long RECEIPT_TIMEOUT_SECONDS = 120;

  private WebhookDeliveryWorkloads() {}

  static List<Workload> all() {
    return List.of(new OneAtATime(), new Backlog());
  }

  /** The receiver, the app and the endpoints both systems share. */
  abstract static class AppSqlite implements Workload.OnApp {
    private HttpServer receiver;
    private ExecutorService receiverThreads;
    private BenchApp app;
    Http http;
    final List<String> testPaths = new ArrayList<>();
    // An event id's future completes when the receiver has it (whichever of the enqueue answer and
    // the receipt comes first creates it), with the receipt's System.nanoTime().
    final Map<String, CompletableFuture<Long>> receipts = new ConcurrentHashMap<>();
    private final LongAdder received = new LongAdder();
    private final LongAdder unsigned = new LongAdder();
    private final LongAdder repeated = new LongAdder();
    private final Map<String, Boolean> seen = new ConcurrentHashMap<>();

    @Override
    public String scenario() {
      return "webhook-delivery";
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
            long now = System.nanoTime();
            if (id != null) {
              received.increment();
              if (seen.putIfAbsent(id, Boolean.TRUE) != null) {
                repeated.increment();
              }
              receipts.computeIfAbsent(id, k -> new CompletableFuture<>()).complete(now);
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

    /** Enqueues one webhook.test event for endpoint {@code endpoint}; returns its event id. */
    String enqueue(int endpoint) throws Exception {
      HttpResponse<String> r = http.send("POST", "admin", testPaths.get(endpoint), "");
      if (r.statusCode() != 200) {
        throw Http.unexpected("webhook test", r);
      }
      return Http.JSON.readTree(r.body()).get("deliveryId").asString();
    }

    /** Waits until the receiver has the event; returns the receipt's System.nanoTime(). */
    long receipt(String id) throws Exception {
      long at =
          receipts
              .computeIfAbsent(id, k -> new CompletableFuture<>())
              .get(RECEIPT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      receipts.remove(id);
      return at;
    }

    @Override
    public BenchApp app() {
      return app;
    }

    @Override
    public Map<String, Object> notes() {
      Map<String, Object> notes = new LinkedHashMap<>();
      notes.put("endpoints", PROJECTS);
      notes.put("projects", PROJECTS);
      notes.put("receiver", "JDK HttpServer on 127.0.0.1, 204 at once");
      notes.put("received", received.sum());
      notes.put("receivedAgain", repeated.sum());
      notes.put("receivedUnsigned", unsigned.sum());
      notes.putAll(moreNotes());
      return notes;
    }

    abstract Map<String, Object> moreNotes();

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

  /**
   * One call is one event: enqueue, then wait for its receipt; each client thread has its own
   * endpoint and one event outstanding. The latency columns are from the enqueue request to the
   * receipt.
   */
  static final class OneAtATime extends AppSqlite {
    @Override
    public String system() {
      return "app-sqlite-one-at-a-time";
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
    public String call(int thread, long n) throws Exception {
      receipt(enqueue(thread));
      return "delivered";
    }

    @Override
    Map<String, Object> moreNotes() {
      return Map.of("outstandingPerEndpoint", 1);
    }
  }

  /**
   * One call is a backlog of events (6 per endpoint in the quick mode, 20 in the full run: 96 or
   * 320 events, enqueued round robin by {@value #ENQUEUERS} threads as fast as the API takes them),
   * then the wait until the receiver has every one: the rate is deliveries per second while the
   * worker has more due than it has free slots. The latency columns are a whole batch's; the notes
   * give each event's enqueue-to-receipt percentiles over the timed batches.
   */
  static final class Backlog extends AppSqlite {
    static final int ENQUEUERS = 4;
    private int perEndpoint = 20;
    private ExecutorService enqueuers;
    private final Histogram latency = new Histogram(3_600_000_000L, 3);

    @Override
    public String system() {
      return "app-sqlite-backlog";
    }

    @Override
    public int threads() {
      return 1;
    }

    @Override
    public Phases phases(Mode mode) {
      return mode.quick() ? Phases.counted(1, 2) : Phases.counted(1, 10);
    }

    @Override
    public long unitsPerCall() {
      return (long) perEndpoint * PROJECTS;
    }

    @Override
    public String unit() {
      return "deliveries";
    }

    @Override
    public void setUp(Mode mode) throws Exception {
      perEndpoint = mode.quick() ? 6 : 20;
      super.setUp(mode);
      enqueuers = Executors.newFixedThreadPool(ENQUEUERS);
    }

    @Override
    public String call(int thread, long n) throws Exception {
      record Enqueued(long createdNanos, String id) {}
      List<Future<Enqueued>> events = new ArrayList<>();
      for (int i = 0; i < perEndpoint * PROJECTS; i++) {
        int endpoint = i % PROJECTS;
        events.add(
            enqueuers.submit(
                () -> {
                  long created = System.nanoTime();
                  return new Enqueued(created, enqueue(endpoint));
                }));
      }
      boolean timed = n >= 1; // the first batch warms up
      for (Future<Enqueued> e : events) {
        Enqueued event = e.get();
        long receivedAt = receipt(event.id());
        if (timed) {
          synchronized (latency) {
            latency.recordValue(Math.max(0, (receivedAt - event.createdNanos()) / 1000));
          }
        }
      }
      return "drained";
    }

    @Override
    Map<String, Object> moreNotes() {
      Map<String, Object> notes = new LinkedHashMap<>();
      notes.put("batch", perEndpoint * PROJECTS);
      notes.put("perEndpoint", perEndpoint);
      notes.put("enqueuers", ENQUEUERS);
      synchronized (latency) {
        notes.put("eventP50Ms", latency.getValueAtPercentile(50) / 1000.0);
        notes.put("eventP99Ms", latency.getValueAtPercentile(99) / 1000.0);
        notes.put("eventMaxMs", latency.getMaxValue() / 1000.0);
      }
      return notes;
    }

    @Override
    public void close() throws Exception {
      Workload.closeInOrder(
          () -> {
            if (enqueuers != null) {
              enqueuers.shutdownNow();
            }
          },
          super::close);
    }
  }
}
