package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.security.RouteTable.Request;
import dev.qinglong.app.security.RouteTable.Route;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.testkit.RawHttp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The authorization matrix (the route tables of docs/api.md#routes): every {@code /v1} route of the
 * running app × every caller (anonymous, a bad token, a member without permissions, each permission
 * alone, the global admin) × the Project (own, other, unknown; for routes that name an object also
 * the own Project with another Project's object and with a made-up one). For each cell: the status
 * the design gives (401, 403, or the route's exact success status when allowed, on fresh objects
 * where the route uses its object up; 409 for an object outside the path's Project); other and
 * unknown Project indistinguishable, and foreign and unknown objects indistinguishable; a problem
 * document without leaks on every error; and no state change in the database for any rejected
 * request (a 409 may count a quota unit, it may change nothing else).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthorizationMatrixTest {
  @TempDir static Path dir;
  SecurityWorld world;

  /** Who calls: no token, a token nobody has, or a user of the world. */
  record Caller(String name, String token, boolean globalAdmin, Set<Permission> inOwn) {}

  enum Target {
    OWN,
    OWN_FOREIGN_OBJECT,
    OWN_UNKNOWN_OBJECT,
    OTHER,
    UNKNOWN;

    boolean ownProject() {
      return this == OWN || this == OWN_FOREIGN_OBJECT || this == OWN_UNKNOWN_OBJECT;
    }
  }

  @BeforeAll
  void start() {
    world = SecurityWorld.start(dir, Map.of()).seed();
  }

  @AfterAll
  void stop() {
    if (world != null) {
      world.close();
    }
  }

  List<Caller> callers() {
    List<Caller> callers = new ArrayList<>();
    callers.add(new Caller("anonymous", null, false, Set.of()));
    callers.add(new Caller("bad-token", "not-a-token-of-anyone-0123456789", false, Set.of()));
    callers.add(new Caller(SecurityWorld.NONE, world.token(SecurityWorld.NONE), false, Set.of()));
    for (Permission p : Permission.values()) {
      String user = SecurityWorld.memberOf(p);
      callers.add(new Caller(user, world.token(user), false, EnumSet.of(p)));
    }
    callers.add(new Caller("global-admin", world.token(SecurityWorld.ADMIN), true, Set.of()));
    return callers;
  }

  @Test
  void everyRouteOfTheAppAndOfTheDocumentHasAMatrixEntry() throws Exception {
    TreeSet<String> registered = RouteTable.registered(world.app);
    TreeSet<String> documented = RouteTable.documented();
    assertThat(registered).as("routes of the app (role all, AI on)").isNotEmpty();
    TreeSet<String> all = new TreeSet<>(registered);
    all.addAll(documented);
    assertThat(RouteTable.ROUTES.keySet())
        .as("the matrix must have an entry for every registered or documented /v1 route")
        .containsAll(all);
    assertThat(all)
        .as("every matrix entry must name a route the app has")
        .containsAll(RouteTable.ROUTES.keySet());
  }

  @TestFactory
  Stream<DynamicTest> matrix() {
    // Computed here (not in the stream) so the route table is checked against the app first.
    TreeSet<String> registered = RouteTable.registered(world.app);
    List<DynamicTest> tests = new ArrayList<>();
    for (Caller caller : callers()) {
      for (Route route : RouteTable.ROUTES.values()) {
        tests.add(
            DynamicTest.dynamicTest(
                caller.name() + " × " + route.key(),
                () -> {
                  assertThat(registered).contains(route.key());
                  List<String> failures = cell(caller, route);
                  assertThat(failures).as(caller.name() + " × " + route.key()).isEmpty();
                }));
      }
    }
    return tests.stream();
  }

  private Set<Permission> held(Caller caller, Target target) {
    Set<Permission> held = EnumSet.noneOf(Permission.class);
    if (target.ownProject()) {
      held.addAll(caller.inOwn());
    }
    if (caller.globalAdmin()) {
      held.add(Permission.PROJECT_ADMIN);
    }
    return held;
  }

  private SecurityWorld.Objects objects(Target target) {
    SecurityWorld.Objects own = world.objects.get(SecurityWorld.OWN);
    SecurityWorld.Objects other = world.objects.get(SecurityWorld.OTHER);
    return switch (target) {
      case OWN -> own;
      case OWN_FOREIGN_OBJECT ->
          new SecurityWorld.Objects(
              SecurityWorld.OWN,
              other.proposalId(),
              other.approvalId(),
              other.actionDigest(),
              other.memberId(),
              other.readyStepRunId(),
              other.invocationId(),
              other.artifact(),
              other.webhookId());
      case OWN_UNKNOWN_OBJECT -> world.unknown(SecurityWorld.OWN);
      case OTHER -> other;
      case UNKNOWN -> world.unknown(world.fresh("p-unknown"));
    };
  }

  /** Runs one cell of the matrix; returns what is wrong with it. */
  private List<String> cell(Caller caller, Route route) {
    List<String> failures = new ArrayList<>();
    Map<Target, RawHttp.Response> answers = new EnumMap<>(Target.class);
    SecurityWorld.State before = world.state();
    for (Target target : Target.values()) {
      if (!route.namesObject()
          && (target == Target.OWN_FOREIGN_OBJECT || target == Target.OWN_UNKNOWN_OBJECT)) {
        continue;
      }
      String expected = expected(caller, route, target);
      SecurityWorld.Objects objects = objects(target);
      if (expected.equals("allowed")) {
        // Fresh objects for a route that uses its object up, so this cell succeeds with its exact
        // status whatever cells ran before; the seeding is not this request's change of state.
        objects = route.prepare(world, objects);
        before = world.state();
      }
      Request request = route.builder().build(world, objects);
      RawHttp.Response r =
          world.raw.request(
              request.method(),
              request.path(),
              caller.token(),
              request.contentType(),
              request.body());
      SecurityWorld.State after = world.state();
      answers.put(target, r);
      String where = target + " " + request.method() + " " + request.path() + " → " + r.status();
      for (String p : Answers.shapeProblems(r)) {
        failures.add(where + ": " + p);
      }
      int status = r.status();
      boolean ok =
          switch (expected) {
            case "401" -> status == 401 && codeIs(r, "unauthenticated");
            case "403" -> status == 403 && codeIs(r, "forbidden");
            case "409" -> status == 409 && codeIs(r, "conflict");
            default -> status == route.okStatus();
          };
      if (!ok) {
        failures.add(
            where
                + ": expected "
                + (expected.equals("allowed") ? "allowed (" + route.okStatus() + ")" : expected)
                + ", body "
                + r.body());
      }
      boolean success = (status >= 200 && status < 300) || status == 304;
      if (!success && !before.domain().equals(after.domain())) {
        failures.add(where + ": a rejected request changed the stored state");
      }
      if (!success && status != 409 && !before.buckets().equals(after.buckets())) {
        failures.add(where + ": a rejected request created or counted a quota bucket");
      }
      before = after;
    }
    if (caller.token() != null && !caller.globalAdmin()) {
      // No existence oracle: a Project the caller holds nothing in looks the same, known or not.
      compare(failures, answers, Target.OTHER, Target.UNKNOWN);
    }
    if (route.namesObject()) {
      compare(failures, answers, Target.OWN_FOREIGN_OBJECT, Target.OWN_UNKNOWN_OBJECT);
    }
    return failures;
  }

  private String expected(Caller caller, Route route, Target target) {
    if (caller.token() == null || caller.name().equals("bad-token")) {
      return "401";
    }
    if (!route.permits(held(caller, target), caller.globalAdmin())) {
      return "403";
    }
    if (route.namesObject()
        && (target == Target.OWN_FOREIGN_OBJECT
            || target == Target.OWN_UNKNOWN_OBJECT
            || target == Target.UNKNOWN)) {
      // Also a caller let into an unknown Project (a global admin): no object can exist there.
      return "409";
    }
    return "allowed";
  }

  private static boolean codeIs(RawHttp.Response r, String code) {
    // HEAD answers carry no body: the status is all there is.
    return r.body().isEmpty() || code.equals(Answers.code(r));
  }

  private static void compare(
      List<String> failures, Map<Target, RawHttp.Response> answers, Target a, Target b) {
    String left = Answers.comparable(answers.get(a));
    String right = Answers.comparable(answers.get(b));
    if (!left.equals(right)) {
      failures.add(a + " and " + b + " can be told apart: «" + left + "» vs «" + right + "»");
    }
  }
}
