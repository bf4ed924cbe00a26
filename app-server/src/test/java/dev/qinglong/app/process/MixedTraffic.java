package dev.qinglong.app.process;

import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.testkit.AppProcess;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Clients of a crash test: mixed traffic (upload, propose, decide, inspect, StepRun, admit,
 * complete, download) in project {@code demo}, each logical request under its own id. A request
 * whose answer did not arrive (connection refused or reset, timeout) or that was 503 is replayed
 * with the same id and body, on whichever process serves now, until it gets an answer or {@link
 * #replayFor} runs out. Every logical request is recorded ({@link Sent}) so the invariants can
 * check that each id answered 2xx is counted exactly once.
 */
final class MixedTraffic {
  static final String PROJECT = "demo";
  static final JsonMapper JSON = JsonMapper.builder().build();

  /** Statuses a kind may end with; anything else is a violation (a 500, a 409 on a replay…). */
  static final Map<String, Set<Integer>> EXPECTED =
      Map.of(
          "upload", Set.of(201, 429),
          "propose", Set.of(200, 201, 429),
          "decide", Set.of(200, 429),
          "inspect", Set.of(200, 429),
          "steprun", Set.of(200, 201),
          "admit", Set.of(200, 201, 429),
          "complete", Set.of(200),
          "download", Set.of(200));

  /** One logical request: its final status (0: never answered within the replay time). */
  record Sent(
      String kind,
      String id,
      String user,
      long firstSentMs,
      int attempts,
      int status,
      String body) {
    boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  record Proposal(
      String proposalId,
      String approvalId,
      String actionDigest,
      String actionRef,
      String artifactDigest) {}

  private final Fleet fleet;
  private final Path dataDir;
  private final Duration replayFor;
  private final long seed;
  private final int maxArtifactBytes;
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  private volatile Map<String, String> tokens;
  private volatile AppProcess downloadServer;

  final ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();
  final ConcurrentHashMap<String, LongAdder> outcomes = new ConcurrentHashMap<>();

  /** HTTP requests sent and not yet answered (not counting clients backing off). */
  final AtomicInteger inFlight = new AtomicInteger();

  /** The same, per process. */
  private final ConcurrentHashMap<AppProcess, AtomicInteger> inFlightOn = new ConcurrentHashMap<>();

  final AtomicLong attempts = new AtomicLong();
  final AtomicLong replays = new AtomicLong();
  final AtomicLong downloadsVerified = new AtomicLong();
  final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  final List<Proposal> proposals = new CopyOnWriteArrayList<>();
  final Set<String> published = ConcurrentHashMap.newKeySet();
  private final AtomicLong seq = new AtomicLong();

  MixedTraffic(Fleet fleet, Path dataDir, Duration replayFor, long seed, int maxArtifactBytes) {
    this.fleet = fleet;
    this.dataDir = dataDir;
    this.replayFor = replayFor;
    this.seed = seed;
    this.maxArtifactBytes = maxArtifactBytes;
  }

  // ---- setup ------------------------------------------------------------------------------------

  String token(String user) throws IOException {
    if (tokens == null) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(dataDir.resolve("dev-tokens.properties"))) {
        p.load(r);
      }
      Map<String, String> m = new TreeMap<>();
      p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
      tokens = m;
    }
    return tokens.get(user);
  }

  /** alice manages and invokes models, bob decides; model m1 reserves maxTotalTokens per call. */
  void setUp(String window, int maxInvocations, int maxTokens, int maxTotalTokens)
      throws Exception {
    admin(
        "PUT",
        "/v1/projects/demo/members/alice",
        "{\"permissions\":[\"package.manage\",\"package.read\",\"model.invoke\"]}");
    admin(
        "PUT",
        "/v1/projects/demo/members/bob",
        "{\"permissions\":[\"approval.decide\",\"package.read\"]}");
    admin(
        "PUT",
        "/v1/projects/demo/model-policies/m1",
        "{\"maxTotalTokens\":" + maxTotalTokens + ",\"maxCostMicros\":null}");
    admin(
        "PUT",
        "/v1/projects/demo/model-quota",
        "{\"window\":\""
            + window
            + "\",\"maxInvocations\":"
            + maxInvocations
            + ",\"maxTokens\":"
            + maxTokens
            + ",\"maxCostMicros\":null}");
  }

  private void admin(String method, String path, String body) throws Exception {
    Answer a =
        call(
            "setup",
            path,
            method,
            path,
            "admin",
            "application/json",
            body.getBytes(StandardCharsets.UTF_8),
            false);
    if (a.status != 200) {
      throw new AssertionError(method + " " + path + " → " + a.status + " " + a.body);
    }
  }

  // ---- traffic ----------------------------------------------------------------------------------

  /**
   * Runs {@code threads} clients until {@code keepGoing} turns false; each then finishes its
   * current chain (replays included) and this returns when all are done.
   */
  void run(int threads, BooleanSupplier keepGoing) throws InterruptedException {
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Random r = new Random(seed * 31 + t);
      Thread th =
          new Thread(
              () -> {
                while (keepGoing.getAsBoolean()) {
                  try {
                    one(r);
                  } catch (Exception e) {
                    violations.add("client error: " + e);
                  }
                }
              },
              "traffic-" + t);
      th.start();
      workers.add(th);
    }
    for (Thread th : workers) {
      th.join();
    }
  }

  private void one(Random r) throws Exception {
    double x = r.nextDouble();
    if (x < 0.30) {
      governance(r);
    } else if (x < 0.55) {
      inspect(r);
    } else if (x < 0.85) {
      model(r);
    } else {
      download(r);
    }
  }

  /** Upload (install) → propose → decide. */
  private void governance(Random r) throws Exception {
    long n = seq.incrementAndGet();
    String digest = null;
    if (r.nextInt(10) < 8) {
      byte[] content = new byte[1 + r.nextInt(maxArtifactBytes)];
      r.nextBytes(content);
      digest = Sha256Digest.of(content).value();
      Answer up =
          call(
              "upload",
              digest,
              "PUT",
              "/v1/projects/demo/artifacts/" + digest,
              "alice",
              "application/octet-stream",
              content,
              false);
      if (!up.ok()) {
        return;
      }
    }
    String ref = "a-" + seed + "-" + n;
    String action =
        digest == null
            ? "{\"type\":\"remove\",\"package\":\"p-" + ref + "\",\"version\":\"1.0.0\"}"
            : "{\"type\":\"install\",\"package\":\"p-"
                + ref
                + "\",\"version\":\"1.0.0\",\"artifactDigest\":\""
                + digest
                + "\"}";
    Answer proposed =
        call(
            "propose",
            ref,
            "POST",
            "/v1/projects/demo/plugin-packages/proposals",
            "alice",
            "application/json",
            ("{\"actionRef\":\"" + ref + "\",\"action\":" + action + "}").getBytes(),
            false);
    if (!proposed.ok()) {
      return;
    }
    JsonNode p = JSON.readTree(proposed.body);
    Proposal proposal =
        new Proposal(
            p.get("proposalId").asString(),
            p.get("approvalId").asString(),
            p.get("actionDigest").asString(),
            ref,
            digest);
    proposals.add(proposal);
    String decision = r.nextInt(10) < 9 ? "approve" : "reject";
    String decisionId = "d-" + seed + "-" + n;
    call(
        "decide",
        decisionId,
        "POST",
        "/v1/projects/demo/plugin-packages/approvals/" + proposal.approvalId() + "/decisions",
        "bob",
        "application/json",
        ("{\"decisionId\":\""
                + decisionId
                + "\",\"decision\":\""
                + decision
                + "\",\"actionDigest\":\""
                + proposal.actionDigest()
                + "\"}")
            .getBytes(),
        false);
  }

  /** An inspection of a known proposal, by alice or bob; learns which artifacts are published. */
  private void inspect(Random r) throws Exception {
    if (proposals.isEmpty()) {
      governance(r);
      return;
    }
    Proposal p = proposals.get(r.nextInt(proposals.size()));
    String id = "i-" + seed + "-" + seq.incrementAndGet();
    Answer a =
        call(
            "inspect",
            id,
            "POST",
            "/v1/projects/demo/plugin-packages/proposals/" + p.proposalId() + "/inspections",
            r.nextBoolean() ? "alice" : "bob",
            "application/json",
            ("{\"inspectionId\":\"" + id + "\"}").getBytes(),
            false);
    if (a.ok()
        && p.artifactDigest() != null
        && "published".equals(JSON.readTree(a.body).get("proposal").get("state").asString())) {
      published.add(p.artifactDigest());
    }
  }

  /** StepRun → admission → completion (one in ten is left running: a runtime that went away). */
  private void model(Random r) throws Exception {
    long n = seq.incrementAndGet();
    String step = "s-" + seed + "-" + n;
    Answer s =
        call(
            "steprun",
            step,
            "POST",
            "/v1/projects/demo/step-runs",
            "alice",
            "application/json",
            ("{\"stepRunId\":\"" + step + "\",\"runId\":\"run-" + seed + "\",\"modelId\":\"m1\"}")
                .getBytes(),
            false);
    if (!s.ok()) {
      return;
    }
    String inv = "v-" + seed + "-" + n;
    Answer admitted =
        call(
            "admit",
            inv,
            "POST",
            "/v1/projects/demo/model-invocations",
            "alice",
            "application/json",
            ("{\"invocationId\":\"" + inv + "\",\"stepRunId\":\"" + step + "\"}").getBytes(),
            false);
    if (!admitted.ok() || r.nextInt(10) == 0) {
      return;
    }
    long reserved = JSON.readTree(admitted.body).get("reservation").get("reservedTokens").asLong();
    String body;
    if (r.nextInt(5) == 0) {
      body = "{\"outcome\":\"unknown\",\"usage\":null,\"costMicros\":null}";
    } else {
      long in = 1 + r.nextInt((int) Math.max(1, reserved / 2));
      long out = r.nextInt((int) Math.max(1, reserved - in + 1));
      body =
          "{\"outcome\":\"succeeded\",\"usage\":{\"inputTokens\":"
              + in
              + ",\"outputTokens\":"
              + out
              + ",\"totalTokens\":"
              + (in + out)
              + "},\"costMicros\":null}";
    }
    call(
        "complete",
        inv,
        "POST",
        "/v1/projects/demo/model-invocations/" + inv + "/completion",
        "alice",
        "application/json",
        body.getBytes(),
        false);
  }

  /** Downloads a published artifact; the bytes must hash to its digest. */
  private void download(Random r) throws Exception {
    List<String> ready = new ArrayList<>(published);
    if (ready.isEmpty()) {
      inspect(r);
      return;
    }
    String digest = ready.get(r.nextInt(ready.size()));
    verifyDownload(digest, "download");
  }

  /** GET of a published artifact from a download server; false if it did not match. */
  boolean verifyDownload(String digest, String kind) throws Exception {
    Answer a =
        call(
            kind,
            digest + "#" + seq.incrementAndGet(),
            "GET",
            "/v1/projects/demo/artifacts/" + digest,
            "alice",
            null,
            null,
            true);
    if (a.status != 200) {
      return false;
    }
    String got = Sha256Digest.of(a.bytes).value();
    if (!got.equals(digest)) {
      violations.add(
          "download of " + digest + " served " + a.bytes.length + " bytes hashing to " + got);
      return false;
    }
    downloadsVerified.incrementAndGet();
    return true;
  }

  // ---- one logical request, replayed until answered
  // ----------------------------------------------

  record Answer(int status, String body, byte[] bytes) {
    boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  Answer call(
      String kind,
      String id,
      String method,
      String path,
      String user,
      String contentType,
      byte[] body,
      boolean download)
      throws Exception {
    long first = System.currentTimeMillis();
    long deadline = System.nanoTime() + replayFor.toNanos();
    int tries = 0;
    Random pick = new Random(id.hashCode());
    while (true) {
      List<AppProcess> targets = download ? fleet.downloads() : fleet.api();
      if (!targets.isEmpty()) {
        // Downloads go to the process that served the last one (the standalone download server
        // of the database; the others answer 503) while it is alive.
        AppProcess preferred = download ? downloadServer : null;
        AppProcess target =
            preferred != null && targets.contains(preferred)
                ? preferred
                : targets.get(pick.nextInt(targets.size()));
        tries++;
        attempts.incrementAndGet();
        if (tries > 1) {
          replays.incrementAndGet();
        }
        HttpRequest.Builder b =
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.port + path))
                .timeout(Duration.ofSeconds(15))
                .header("Authorization", "Bearer " + token(user));
        if (contentType != null) {
          b.header("Content-Type", contentType);
        }
        b.method(
            method,
            body == null
                ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(body));
        AtomicInteger onTarget = inFlightOn.computeIfAbsent(target, k -> new AtomicInteger());
        inFlight.incrementAndGet();
        onTarget.incrementAndGet();
        try {
          HttpResponse<byte[]> resp;
          try {
            resp = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
          } finally {
            onTarget.decrementAndGet();
            inFlight.decrementAndGet();
          }
          int status = resp.statusCode();
          if (download) {
            downloadServer = status == 200 ? target : null;
          }
          if (status != 503) {
            if (!kind.equals("setup")) {
              record(kind, id, user, first, tries, status, resp.body());
            }
            if (status == 429) {
              // A well-behaved client backs off (the real Retry-After is up to a window).
              Thread.sleep(200 + pick.nextInt(300));
            }
            return new Answer(status, new String(resp.body(), StandardCharsets.UTF_8), resp.body());
          }
          count(kind, "503-replayed");
        } catch (IOException e) {
          count(kind, "no-answer-replayed");
        }
      }
      if (System.nanoTime() > deadline) {
        if (!kind.equals("setup")) {
          record(kind, id, user, first, tries, 0, new byte[0]);
        }
        return new Answer(0, "", new byte[0]);
      }
      Thread.sleep(100 + pick.nextInt(200));
    }
  }

  private void record(
      String kind, String id, String user, long first, int tries, int status, byte[] body) {
    String text = new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8);
    sent.add(new Sent(kind, id, user, first, tries, status, kind.equals("download") ? "" : text));
    count(kind, status == 0 ? "unanswered" : Integer.toString(status));
    Set<Integer> expected = EXPECTED.get(kind);
    if (expected != null && !expected.contains(status)) {
      violations.add(
          kind + " " + id + " ended " + (status == 0 ? "unanswered" : status) + " " + text);
    }
  }

  private void count(String kind, String outcome) {
    outcomes.computeIfAbsent(kind + " " + outcome, k -> new LongAdder()).increment();
  }

  /** Outcome counts, sorted: {@code "admit 201" → n}. */
  Map<String, Long> outcomeCounts() {
    Map<String, Long> m = new TreeMap<>();
    outcomes.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  /** True once each of {@code outcomes} (as {@code "admit 201"}) has happened at least once. */
  boolean seen(String... outcomes) {
    Map<String, Long> counts = outcomeCounts();
    for (String o : outcomes) {
      if (counts.getOrDefault(o, 0L) == 0) {
        return false;
      }
    }
    return true;
  }

  /** True once every kind of the mix has succeeded (answered 2xx) at least once. */
  boolean everyKindSucceeded() {
    Set<String> counts = outcomeCounts().keySet();
    return EXPECTED.keySet().stream()
        .allMatch(kind -> counts.stream().anyMatch(k -> k.startsWith(kind + " 2")));
  }

  /** HTTP requests sent to {@code p} and not yet answered. */
  int inFlightOn(AppProcess p) {
    AtomicInteger n = inFlightOn.get(p);
    return n == null ? 0 : n.get();
  }

  long requests() {
    return sent.size();
  }
}
