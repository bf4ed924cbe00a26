package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.app.http.security.DevTokens;
import dev.qinglong.app.security.RouteTable.Request;
import dev.qinglong.app.security.RouteTable.Route;
import dev.qinglong.app.support.AiInspector;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.testkit.RawHttp;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dev-token account {@code runtime} (a runtime service's account): its token in a new and in an
 * upgraded tokens file, its membership of project demo on fresh and on older data, and what it may
 * call there: the model routes, none of the package routes.
 */
class RuntimeAccountTest {
  static final String HEADER =
      "# QingLong dev tokens (qinglong.auth.mode=dev-tokens). Local use only.\n"
          + "# Send as: Authorization: Bearer <token>\n";
  static final Pattern TOKEN_LINE = Pattern.compile("[a-z]+=[A-Za-z0-9_-]{43}");

  // ---- the tokens file -------------------------------------------------------------------------

  /** Writes {@code text} as the tokens file with mode 0600, as the app would find it. */
  static Path writeOwnerOnly(Path dir, String text) throws Exception {
    Path file = dir.resolve("dev-tokens.properties");
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  @Test
  void aNewTokensFileHasAnOwnerOnlyLineWithARandomTokenForEachDevUser(@TempDir Path dir)
      throws Exception {
    DevTokens tokens = DevTokens.loadOrCreate(dir);
    Path file = dir.resolve("dev-tokens.properties");
    assertThat(tokens.created()).isTrue();
    assertThat(tokens.added()).isEmpty();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    String text = Files.readString(file);
    assertThat(text).startsWith(HEADER);
    List<String> lines = text.substring(HEADER.length()).lines().toList();
    assertThat(lines).hasSize(5).allMatch(l -> TOKEN_LINE.matcher(l).matches());
    assertThat(lines.stream().map(l -> l.substring(0, l.indexOf('='))))
        .containsExactly("admin", "alice", "bob", "carol", "runtime");
    assertThat(lines.stream().map(l -> l.substring(l.indexOf('=') + 1)).distinct()).hasSize(5);
    for (String line : lines) {
      String user = line.substring(0, line.indexOf('='));
      assertThat(tokens.userFor(line.substring(line.indexOf('=') + 1))).contains(user);
    }
  }

  @Test
  void aFileOfAnOlderVersionGetsTheMissingLineAppendedAndKeepsItsTokens(@TempDir Path dir)
      throws Exception {
    // What a version with four users wrote; the last line without its newline.
    String old =
        HEADER
            + "admin=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
            + "alice=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n"
            + "bob=ccccccccccccccccccccccccccccccccccccccccccc\n"
            + "carol=ddddddddddddddddddddddddddddddddddddddddddd";
    Path file = writeOwnerOnly(dir, old);

    DevTokens tokens = DevTokens.loadOrCreate(dir);
    assertThat(tokens.created()).isFalse();
    assertThat(tokens.added()).containsExactly("runtime");
    String text = Files.readString(file);
    assertThat(text).startsWith(old + "\n");
    String appended = text.substring(old.length() + 1);
    assertThat(appended).endsWith("\n");
    assertThat(appended.strip()).startsWith("runtime=").matches(TOKEN_LINE);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThat(tokens.userFor("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")).contains("alice");
    assertThat(tokens.userFor("ddddddddddddddddddddddddddddddddddddddddddd")).contains("carol");
    assertThat(tokens.userFor(appended.strip().substring("runtime=".length()))).contains("runtime");

    // The next start finds every user: nothing more is appended.
    DevTokens again = DevTokens.loadOrCreate(dir);
    assertThat(again.added()).isEmpty();
    assertThat(Files.readString(file)).isEqualTo(text);
  }

  @Test
  void aHandWrittenFileIsReadAsItIs(@TempDir Path dir) throws Exception {
    String own = "# my users\nalice=my-own-token-for-alice-0123\n";
    Path file = writeOwnerOnly(dir, own);
    DevTokens tokens = DevTokens.loadOrCreate(dir);
    assertThat(tokens.added()).isEmpty();
    assertThat(tokens.users()).containsExactly("alice");
    assertThat(Files.readString(file)).isEqualTo(own);
  }

  /**
   * A complete file is only read: never opened for writing nor locked, so a read-only one (0400, or
   * on a read-only volume) starts. The run is as root in CI, which writes through any mode, so the
   * test holds the file's lock instead: this JVM's own lock makes any attempt to take it again
   * fail. An incomplete file, which does need the append, shows that the lock is noticed.
   */
  @Test
  void aCompleteFileIsReadWithoutOpeningItForWriting(@TempDir Path dir) throws Exception {
    Path file = DevTokens.loadOrCreate(dir).file();
    String text = Files.readString(file);
    try (FileChannel held = FileChannel.open(file, StandardOpenOption.WRITE);
        FileLock lock = held.lock()) {
      assertThat(DevTokens.loadOrCreate(dir).users())
          .containsExactlyInAnyOrderElementsOf(DevTokens.USERS);
    }
    assertThat(Files.readString(file)).isEqualTo(text);

    Path older = dir.resolve("older");
    Files.createDirectories(older);
    Path incomplete = writeOwnerOnly(older, HEADER + "admin=" + "a".repeat(43) + "\n");
    try (FileChannel held = FileChannel.open(incomplete, StandardOpenOption.WRITE);
        FileLock lock = held.lock()) {
      assertThatThrownBy(() -> DevTokens.loadOrCreate(older))
          .isInstanceOf(OverlappingFileLockException.class);
    }
  }

  // ---- project demo ----------------------------------------------------------------------------

  static List<String> permissions(Http http, String admin, String user) {
    Http.Response r = http.get("/v1/projects/demo/members/" + user, admin);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    List<String> list = new ArrayList<>();
    r.json().get("permissions").forEach(p -> list.add(p.asString()));
    return list;
  }

  @Test
  void demoIsSeededWithRuntimeOnFreshDataAndGetsItOnDataOfAnOlderVersion(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("dev-tokens.properties");
    String aliceToken;
    try (TestApp app = TestApp.start(dir)) {
      String admin = app.token("admin");
      assertThat(permissions(app.http, admin, "runtime"))
          .containsExactlyInAnyOrder("model.invoke", "model.usage.read");
      assertThat(permissions(app.http, admin, "alice"))
          .containsExactlyInAnyOrder("package.manage", "package.read");
      // An operator's change to a seeded member.
      app.grant("demo", "alice", "package.read");
      aliceToken = app.token("alice");
    }
    // What an older version left: no runtime in the tokens file, none in demo.
    String withoutRuntime =
        String.join(
                "\n",
                Files.readString(file).lines().filter(l -> !l.startsWith("runtime=")).toList())
            + "\n";
    Files.writeString(file, withoutRuntime);
    assertThat(
            AiInspector.sqlite(dir)
                .ownerUpdate(
                    "DELETE FROM project_members WHERE project_id = 'demo' AND user_id = 'runtime'"))
        .isEqualTo(1);

    try (TestApp app = TestApp.start(dir)) {
      assertThat(Files.readString(file)).startsWith(withoutRuntime).contains("\nruntime=");
      assertThat(app.token("alice")).isEqualTo(aliceToken);
      String admin = app.token("admin");
      assertThat(permissions(app.http, admin, "runtime"))
          .containsExactlyInAnyOrder("model.invoke", "model.usage.read");
      // The members that existed are as they were.
      assertThat(permissions(app.http, admin, "alice")).containsExactly("package.read");
      assertThat(permissions(app.http, admin, "bob"))
          .containsExactlyInAnyOrder("approval.decide", "package.read");
      assertThat(app.http.get("/v1/projects/demo/members/carol", admin).status()).isEqualTo(200);
      assertThat(app.http.get("/v1/projects/demo/members/runtime", app.token("runtime")).status())
          .isEqualTo(200);
    }
  }

  // ---- what runtime may call in demo ---------------------------------------------------------

  static Http.Response expect(int status, Http.Response r) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    return r;
  }

  @Test
  void runtimeCallsTheModelRoutesOfDemoAndNoPackageRoute(@TempDir Path dir) throws Exception {
    try (SecurityWorld world = SecurityWorld.start(dir, Map.of())) {
      Http http = world.app.http;
      String runtime = world.token("runtime");
      String admin = world.token(SecurityWorld.ADMIN);
      String demo = "/v1/projects/demo";

      // The model routes: the policy is the admin's, the rest is runtime's.
      expect(200, http.put(demo + "/model-policies/m1", admin, "{\"maxTotalTokens\":100}"));
      String stepJson = "{\"stepRunId\":\"s1\",\"runId\":\"r1\",\"modelId\":\"m1\"}";
      expect(201, http.post(demo + "/step-runs", runtime, stepJson));
      expect(200, http.get(demo + "/step-runs/s1", runtime));
      String admitJson = "{\"invocationId\":\"i1\",\"stepRunId\":\"s1\"}";
      expect(201, http.post(demo + "/model-invocations", runtime, admitJson));
      expect(200, http.get(demo + "/model-invocations/i1", runtime));
      String usage =
          "{\"outcome\":\"succeeded\",\"usage\":{\"inputTokens\":1,\"outputTokens\":2,"
              + "\"totalTokens\":3}}";
      expect(200, http.post(demo + "/model-invocations/i1/completion", runtime, usage));
      expect(200, http.get(demo + "/model-usage/window", runtime));
      assertThat(expect(200, http.get(demo + "/model-usage/ledger", runtime)).body())
          .contains("\"invocationId\":\"i1\"");

      // Every route of a Project its two permissions do not open: 403, the package routes among
      // them (each checked before the made-up objects are looked up).
      Set<Permission> held = EnumSet.of(Permission.MODEL_INVOKE, Permission.MODEL_USAGE_READ);
      List<String> refused = new ArrayList<>();
      List<String> failures = new ArrayList<>();
      for (Route route : RouteTable.ROUTES.values()) {
        if (!route.inProject() || route.permits(held, false)) {
          continue;
        }
        Request request = route.builder().build(world, world.unknown("demo"));
        RawHttp.Response r =
            world.raw.request(
                request.method(), request.path(), runtime, request.contentType(), request.body());
        refused.add(route.key());
        // A HEAD answer has no body to carry the code.
        boolean forbidden =
            request.method().equals("HEAD") || r.body().contains("\"code\":\"forbidden\"");
        if (r.status() != 403 || !forbidden) {
          failures.add(route.key() + " → " + r.status() + " " + r.body());
        }
      }
      assertThat(failures).isEmpty();
      List<String> packageRoutes =
          RouteTable.ROUTES.keySet().stream().filter(k -> k.contains("/plugin-packages")).toList();
      assertThat(packageRoutes).isNotEmpty();
      // Of the package routes only the one docs/api.md opens to any member of the Project (the
      // approval policy's read) is not refused; every route that needs a package permission is.
      List<String> openToMembers =
          packageRoutes.stream().filter(k -> RouteTable.ROUTES.get(k).anyOf().isEmpty()).toList();
      assertThat(openToMembers)
          .containsExactly("GET /v1/projects/{projectId}/plugin-packages/approval-policy");
      assertThat(refused)
          .containsAll(packageRoutes.stream().filter(k -> !openToMembers.contains(k)).toList());
      assertThat(http.get(demo + "/plugin-packages/approval-policy", runtime).status())
          .isEqualTo(200);
    }
  }
}
