package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.artifacts.ArtifactPublisher;
import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.gateway.artifacts.FileArtifactStore;
import dev.qinglong.testkit.RawHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * The world the security suite attacks: one app (SQLite, AI on, quota limits high enough that no
 * check runs into them), a dev-tokens file with one user per permission, and two Projects full of
 * objects. {@code p-own}: every {@code m-<permission>} user holds exactly that permission, {@code
 * m-none} is a member without permissions. {@code p-other}: a Project none of them belongs to,
 * holding the same kinds of objects. A Project with no member is "unknown".
 */
final class SecurityWorld implements AutoCloseable {
  static final String OWN = "p-own";
  static final String OTHER = "p-other";
  static final String NONE = "m-none";
  static final String ADMIN = "admin";

  /** The webhook every Project has, which the well-formed PUT replaces (200). */
  static final String WEBHOOK_PUT = "wh-put";

  /** A webhook body the target rules accept without resolving anything (a public IP literal). */
  static final String WEBHOOK_BODY =
      "{\"url\":\"https://93.184.215.14/hook\",\"events\":[\"webhook.test\"]}";

  static final Map<String, String> HIGH_LIMITS =
      Map.of(
          "qinglong.ai.enabled", "true",
          // The endpoints registered here name a public address: never try to reach it.
          "qinglong.webhooks.delivery.enabled", "false",
          "qinglong.management-quota.limits.propose", "1000",
          "qinglong.management-quota.limits.decide", "1000",
          "qinglong.management-quota.limits.inspect", "1000",
          "qinglong.management-quota.limits.model-usage-read", "1000");

  /** The objects of one Project (or made-up ids, for an unknown one). */
  record Objects(
      String project,
      String proposalId,
      String approvalId,
      String actionDigest,
      String memberId,
      String readyStepRunId,
      String invocationId,
      byte[] artifact,
      String webhookId) {
    Sha256Digest digest() {
      return Sha256Digest.of(artifact);
    }

    /** The same objects named under another Project id (e.g. a malformed one). */
    Objects withProject(String other) {
      return new Objects(
          other,
          proposalId,
          approvalId,
          actionDigest,
          memberId,
          readyStepRunId,
          invocationId,
          artifact,
          webhookId);
    }
  }

  final TestApp app;
  final Path dir;
  final RawHttp raw;
  final Map<String, String> tokens = new LinkedHashMap<>();
  final Map<String, Objects> objects = new LinkedHashMap<>();
  // One counter for every world of the JVM: worlds started one after the other on the same data
  // directory (PathSpellingsTest, one per role) must not hand out the same "fresh" id twice, or a
  // request meant to create something is answered as a replay.
  private static final AtomicLong fresh = new AtomicLong();
  private final Random random = new Random(7);

  static String memberOf(Permission p) {
    return "m-" + p.wireName().replace('.', '-');
  }

  static List<String> users() {
    List<String> users = new ArrayList<>(List.of(ADMIN, "alice", "bob", "carol", "runtime"));
    users.addAll(List.of("owner", "owner2", "foreigner", NONE));
    for (Permission p : Permission.values()) {
      users.add(memberOf(p));
    }
    return users;
  }

  private SecurityWorld(TestApp app, Path dir, Map<String, String> tokens) {
    this.app = app;
    this.dir = dir;
    this.raw = new RawHttp(app.http.port());
    this.tokens.putAll(tokens);
  }

  /** Writes the tokens file (owner-only, as the app itself would) and starts the app. */
  static SecurityWorld start(Path dir, Map<String, String> extra) {
    Map<String, String> tokens = writeTokens(dir);
    Map<String, String> props = new LinkedHashMap<>(HIGH_LIMITS);
    props.putAll(extra);
    return new SecurityWorld(TestApp.start(dir, props), dir, tokens);
  }

  static Map<String, String> writeTokens(Path dir) {
    Map<String, String> tokens = new LinkedHashMap<>();
    Random r = new Random(dir.toString().hashCode());
    StringBuilder file = new StringBuilder("# security suite users\n");
    for (String user : users()) {
      String token =
          "tok-"
              + user
              + "-"
              + r.ints(24, 'a', 'z' + 1)
                  .mapToObj(c -> String.valueOf((char) c))
                  .collect(Collectors.joining());
      tokens.put(user, token);
      file.append(user).append('=').append(token).append('\n');
    }
    try {
      Files.createDirectories(dir);
      Path f = dir.resolve("dev-tokens.properties");
      Files.writeString(f, file.toString());
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return tokens;
  }

  String token(String user) {
    return tokens.get(user);
  }

  String fresh(String prefix) {
    return prefix + "-" + fresh.incrementAndGet();
  }

  byte[] freshBytes() {
    byte[] b = new byte[64];
    random.nextBytes(b);
    return b;
  }

  /** Made-up ids: what a client would send for objects that do not exist. */
  Objects unknown(String project) {
    String n = Long.toString(fresh.incrementAndGet());
    return new Objects(
        project,
        "prop-unknown-" + n,
        "appr-unknown-" + n,
        Sha256Digest.of(("digest " + n).getBytes(StandardCharsets.UTF_8)).value(),
        "user-unknown-" + n,
        "s-unknown-" + n,
        "inv-unknown-" + n,
        freshBytes(),
        "wh-unknown-" + n);
  }

  // ---- seeding, through the API
  // ------------------------------------------------------------------

  /** Seeds both Projects (memberships, proposals, a published artifact, model objects). */
  SecurityWorld seed() {
    for (Permission p : Permission.values()) {
      member(OWN, memberOf(p), p.wireName());
    }
    member(OWN, NONE);
    member(OWN, "owner", allPermissions());
    member(OWN, "owner2", "approval.decide", "package.read");
    member(OTHER, "owner", allPermissions());
    member(OTHER, "owner2", "approval.decide", "package.read");
    member(OTHER, "foreigner", "package.read");
    seedProject(OWN);
    seedProject(OTHER);
    return this;
  }

  private static String[] allPermissions() {
    return Stream.of(Permission.values()).map(Permission::wireName).toArray(String[]::new);
  }

  private void member(String project, String user, String... permissions) {
    String list =
        Stream.of(permissions).map(p -> "\"" + p + "\"").collect(Collectors.joining(",", "[", "]"));
    expect(
        200,
        raw.request(
            "PUT",
            "/v1/projects/" + project + "/members/" + user,
            token(ADMIN),
            "{\"permissions\":" + list + "}"));
  }

  private void seedProject(String p) {
    String base = "/v1/projects/" + p;
    String owner = token("owner");
    expect(
        200,
        raw.request(
            "PUT",
            base + "/model-policies/m1",
            token(ADMIN),
            "{\"maxTotalTokens\":100,\"maxCostMicros\":null}"));
    for (String s : List.of("s-admitted-" + p, "s-ready-" + p)) {
      expect(
          201,
          raw.request(
              "POST",
              base + "/step-runs",
              owner,
              "{\"stepRunId\":\"" + s + "\",\"runId\":\"r1\",\"modelId\":\"m1\"}"));
    }
    expect(
        201,
        raw.request(
            "POST",
            base + "/model-invocations",
            owner,
            "{\"invocationId\":\"inv-" + p + "\",\"stepRunId\":\"s-admitted-" + p + "\"}"));

    byte[] artifact = ("the artifact of " + p).getBytes(StandardCharsets.UTF_8);
    Sha256Digest d = Sha256Digest.of(artifact);
    expect(
        201,
        raw.request(
            "PUT", base + "/artifacts/" + d.value(), owner, "application/octet-stream", artifact));
    JsonNode installed =
        json(
            expect(
                201,
                raw.request(
                    "POST",
                    base + "/plugin-packages/proposals",
                    owner,
                    "{\"actionRef\":\"fx-install\",\"action\":{\"type\":\"install\",\"package\":"
                        + "\"pkg\",\"version\":\"1.0.0\",\"artifactDigest\":\""
                        + d.value()
                        + "\"}}")));
    expect(
        200,
        raw.request(
            "POST",
            base
                + "/plugin-packages/approvals/"
                + installed.get("approvalId").asString()
                + "/decisions",
            token("owner2"),
            "{\"decisionId\":\"fx-approve\",\"decision\":\"approve\",\"actionDigest\":\""
                + installed.get("actionDigest").asString()
                + "\"}"));
    new ArtifactPublisher(
            app.bean(OpenedStore.Worker.class).publisher(),
            app.bean(FileArtifactStore.class),
            Clock.systemUTC())
        .publishOnce();
    expect(200, raw.request("GET", base + "/artifacts/" + d.value(), owner, null));

    JsonNode pending =
        json(
            expect(
                201,
                raw.request(
                    "POST",
                    base + "/plugin-packages/proposals",
                    owner,
                    "{\"actionRef\":\"fx-pending\",\"action\":{\"type\":\"remove\",\"package\":"
                        + "\"pkg\",\"version\":\"1.0.0\"}}")));
    // Two webhook endpoints: one the routes that name an endpoint use, one the PUT replaces.
    for (String id : List.of("wh-" + p, WEBHOOK_PUT)) {
      expect(201, raw.request("PUT", base + "/webhooks/" + id, owner, WEBHOOK_BODY));
    }
    objects.put(
        p,
        new Objects(
            p,
            pending.get("proposalId").asString(),
            pending.get("approvalId").asString(),
            pending.get("actionDigest").asString(),
            p.equals(OWN) ? "owner" : "foreigner",
            "s-ready-" + p,
            "inv-" + p,
            artifact,
            "wh-" + p));
  }

  // ---- fresh objects for requests that use their object up
  // ------------------------------------------------------------------

  /**
   * {@code o} with a fresh pending proposal of {@code o.project()} (seeded by its owner), so one
   * decision on its approval succeeds (a decided approval answers 409 to the next).
   */
  Objects withFreshPendingApproval(Objects o) {
    JsonNode pending =
        json(
            expect(
                201,
                raw.request(
                    "POST",
                    "/v1/projects/" + o.project() + "/plugin-packages/proposals",
                    token("owner"),
                    "{\"actionRef\":\""
                        + fresh("fx-ref")
                        + "\",\"action\":{\"type\":\"remove\",\"package\":\""
                        + fresh("fx-pkg")
                        + "\",\"version\":\"1.0.0\"}}")));
    return new Objects(
        o.project(),
        pending.get("proposalId").asString(),
        pending.get("approvalId").asString(),
        pending.get("actionDigest").asString(),
        o.memberId(),
        o.readyStepRunId(),
        o.invocationId(),
        o.artifact(),
        o.webhookId());
  }

  /**
   * {@code o} with a fresh ready StepRun {@code s-ready-<n>} and a fresh admitted one {@code
   * s-admitted-<n>} whose invocation is {@code inv-<n>} (seeded by the owner): one admission of the
   * ready StepRun, one completion of the invocation and one recovery of the admitted StepRun each
   * succeed (a StepRun is admitted once, an invocation completes once).
   */
  Objects withFreshModelObjects(Objects o) {
    String n = fresh("fx");
    String base = "/v1/projects/" + o.project();
    for (String s : List.of("s-admitted-" + n, "s-ready-" + n)) {
      expect(
          201,
          raw.request(
              "POST",
              base + "/step-runs",
              token("owner"),
              "{\"stepRunId\":\"" + s + "\",\"runId\":\"r1\",\"modelId\":\"m1\"}"));
    }
    expect(
        201,
        raw.request(
            "POST",
            base + "/model-invocations",
            token("owner"),
            "{\"invocationId\":\"inv-" + n + "\",\"stepRunId\":\"s-admitted-" + n + "\"}"));
    return new Objects(
        o.project(),
        o.proposalId(),
        o.approvalId(),
        o.actionDigest(),
        o.memberId(),
        "s-ready-" + n,
        "inv-" + n,
        o.artifact(),
        o.webhookId());
  }

  /**
   * {@code o}, with {@link #WEBHOOK_PUT} registered in {@code o.project()} (by the global
   * administrator, so in any Project), so that the well-formed PUT replaces it (200) rather than
   * creating it: a Project's endpoints never grow towards their cap of 10 however often it runs.
   */
  Objects withWebhookToReplace(Objects o) {
    RawHttp.Response r =
        raw.request(
            "PUT",
            "/v1/projects/" + o.project() + "/webhooks/" + WEBHOOK_PUT,
            token(ADMIN),
            WEBHOOK_BODY);
    assertThat(r.status()).as("seeding: %s", r.body()).isIn(200, 201);
    return o;
  }

  /** The webhook the well-formed DELETE removes, registered again before each one. */
  static final String WEBHOOK_DELETE = "wh-del";

  /**
   * {@code o} naming {@link #WEBHOOK_DELETE}, registered (again) in {@code o.project()} by the
   * global administrator, so that one DELETE removes it (204). Always the same id: a request that
   * does not reach the route leaves no endpoint behind towards the Project's cap of 10.
   */
  Objects withWebhookToDelete(Objects o) {
    RawHttp.Response r =
        raw.request(
            "PUT",
            "/v1/projects/" + o.project() + "/webhooks/" + WEBHOOK_DELETE,
            token(ADMIN),
            WEBHOOK_BODY);
    assertThat(r.status()).as("seeding: %s", r.body()).isIn(200, 201);
    return new Objects(
        o.project(),
        o.proposalId(),
        o.approvalId(),
        o.actionDigest(),
        o.memberId(),
        o.readyStepRunId(),
        o.invocationId(),
        o.artifact(),
        WEBHOOK_DELETE);
  }

  private static RawHttp.Response expect(int status, RawHttp.Response r) {
    assertThat(r.status()).as("seeding: %s", r.body()).isEqualTo(status);
    return r;
  }

  static JsonNode json(RawHttp.Response r) {
    return dev.qinglong.app.support.Http.JSON.readTree(r.body());
  }

  // ---- what the database holds
  // -------------------------------------------------------------------

  /**
   * What the database and the artifact store hold: {@code domain} is every row of every table the
   * API writes (but the quota buckets) and the artifact files, {@code buckets} the durable quota.
   */
  record State(String domain, String buckets) {}

  private static final String[][] GOVERNANCE_TABLES = {
    {"project_members", "project_id, user_id"},
    {"plugin_package_proposals", "project_id, proposal_id"},
    {"plugin_package_approvals", "project_id, approval_id"},
    {"management_quota_limit_revisions", "project_id, user_id, revision"},
    {"management_quota_limits", "project_id, user_id, operation, revision"},
    // The webhook registrations; not their deliveries, whose attempts the worker records.
    {"webhook_projects", "project_id"},
    {"webhook_endpoints", "project_id, webhook_id"},
    {"webhook_endpoint_events", "project_id, webhook_id, event_type"},
  };
  private static final String BUCKETS =
      "SELECT * FROM plugin_package_management_quota_buckets"
          + " ORDER BY project_id, subject_type, subject_id, operation";

  private Connection inspector;

  State state() {
    try {
      if (inspector == null) {
        // One connection for all snapshots: the tables are read thousands of times.
        inspector = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("qinglong.db"));
      }
      StringBuilder domain = new StringBuilder();
      for (String[][] tables : new String[][][] {GOVERNANCE_TABLES, AiInspector.TABLES}) {
        for (String[] t : tables) {
          domain.append("## ").append(t[0]).append('\n');
          rows(domain, "SELECT * FROM " + t[0] + " ORDER BY " + t[1]);
        }
      }
      domain.append(artifactFiles());
      StringBuilder buckets = new StringBuilder();
      rows(buckets, BUCKETS);
      return new State(domain.toString(), buckets.toString());
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void rows(StringBuilder out, String sql) throws SQLException {
    try (Statement st = inspector.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= columns; i++) {
          out.append(rs.getString(i)).append('|');
        }
        out.append('\n');
      }
    }
  }

  private String artifactFiles() {
    Path root = dir.resolve("artifacts");
    if (!Files.isDirectory(root)) {
      return "";
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .map(f -> root.relativize(f).toString())
          .sorted()
          .collect(Collectors.joining("\n", "## artifacts\n", "\n"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      if (inspector != null) {
        inspector.close();
      }
    } catch (SQLException e) {
      // closing a read-only inspection connection: nothing to recover
    }
    app.close();
  }
}
