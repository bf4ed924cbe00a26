package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.platform.Role;
import dev.qinglong.app.security.RouteTable.Request;
import dev.qinglong.app.security.RouteTable.Route;
import dev.qinglong.testkit.RawHttp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Path spellings, for each role (all, writer, reader, worker) and every route of the route table:
 * percent-encoding, double encoding, {@code //}, {@code /./}, {@code ..}, {@code ;params}, case,
 * trailing slash, encoded slashes, backslashes, {@code %00}, bad percent-encoding, absolute form.
 * Written byte for byte on a socket. A spelling must either reach exactly what the canonical path
 * reaches (the route's exact success status for the same caller; a {@code .json} suffix on an
 * object id names an unknown object, 409) or be refused (400, 404, 405); no spelling is a way
 * around authentication or around the role's route set; every error is a problem document without
 * leaks (the container's own rejections included). {@code RoleRoutesTest} checks which controllers
 * each role registers; this covers every route and every role with more spellings.
 */
class PathSpellingsTest {
  @TempDir static Path dir;

  /** Spellings of a canonical {@code /v1/projects/p-own/<rest>} path (query kept as is). */
  static final Map<String, UnaryOperator<String>> SPELLINGS = new LinkedHashMap<>();

  static {
    SPELLINGS.put("%31 for 1", p -> p.replaceFirst("^/v1/", "/v%31/"));
    SPELLINGS.put("all percent-encoded", p -> p.replaceFirst("^/v1/", "/%76%31/"));
    SPELLINGS.put("double-encoded", p -> p.replaceFirst("^/v1/", "/v%2531/"));
    SPELLINGS.put("leading //", p -> "/" + p);
    SPELLINGS.put("inner //", p -> p.replaceFirst("^/v1/", "/v1//"));
    SPELLINGS.put("leading /./", p -> "/." + p);
    SPELLINGS.put("inner /./", p -> p.replaceFirst("^/v1/", "/v1/./"));
    SPELLINGS.put("/x/../", p -> "/x/.." + p);
    SPELLINGS.put("project/x/../", p -> p.replaceFirst("/projects/", "/projects/x/../"));
    SPELLINGS.put("encoded ..", p -> "/x/%2e%2e" + p);
    SPELLINGS.put("..;/", p -> p.replaceFirst("/p-own/", "/p-own/..;/p-own/"));
    SPELLINGS.put("upper V1", p -> p.replaceFirst("^/v1/", "/V1/"));
    SPELLINGS.put("upper PROJECTS", p -> p.replaceFirst("/projects/", "/PROJECTS/"));
    SPELLINGS.put(";param on v1", p -> p.replaceFirst("^/v1/", "/v1;x=y/"));
    SPELLINGS.put(";param on projects", p -> p.replaceFirst("/projects/", "/projects;x=y/"));
    SPELLINGS.put(";param on the last segment", p -> withPath(p, path -> path + ";x=y"));
    SPELLINGS.put("trailing slash", p -> withPath(p, path -> path + "/"));
    SPELLINGS.put("trailing /.", p -> withPath(p, path -> path + "/."));
    SPELLINGS.put("trailing %2F", p -> withPath(p, path -> path + "%2F"));
    SPELLINGS.put("encoded inner slash", p -> p.replaceFirst("/p-own/([^/?]+)/", "/p-own/$1%2F"));
    SPELLINGS.put("backslashes", p -> p.replaceFirst("^/v1/projects/", "/v1\\\\projects\\\\"));
    SPELLINGS.put("%00 in the project", p -> p.replaceFirst("/p-own/", "/p-own%00/"));
    SPELLINGS.put("bad percent-encoding", p -> p.replaceFirst("/p-own/", "/p-own%zz/"));
    SPELLINGS.put("encoded project letter", p -> p.replaceFirst("/p-own/", "/%70-own/"));
    SPELLINGS.put("trailing %20", p -> withPath(p, path -> path + "%20"));
    SPELLINGS.put(".json suffix", p -> withPath(p, path -> path + ".json"));
    SPELLINGS.put("absolute form", p -> "http://127.0.0.1" + p);
  }

  private static String withPath(String target, UnaryOperator<String> f) {
    int q = target.indexOf('?');
    return q < 0 ? f.apply(target) : f.apply(target.substring(0, q)) + target.substring(q);
  }

  @Test
  void noSpellingReachesMoreThanTheCanonicalPathInAnyRole() {
    List<String> failures = new ArrayList<>();
    int requests = 0;
    Map<String, SecurityWorld.Objects> objects;
    try (SecurityWorld all = SecurityWorld.start(dir, Map.of()).seed()) {
      objects = new LinkedHashMap<>(all.objects);
      requests += check(all, Role.ALL, failures);
    }
    for (Role role : List.of(Role.WRITER, Role.READER, Role.WORKER)) {
      try (SecurityWorld world =
          SecurityWorld.start(dir, Map.of("qinglong.role", role.name().toLowerCase(Locale.ROOT)))) {
        world.objects.putAll(objects);
        requests += check(world, role, failures);
      }
    }
    assertThat(requests).isGreaterThan(1_000);
    assertThat(failures)
        .as(failures.size() + " path-spelling failures in " + requests + " requests")
        .isEmpty();
  }

  /**
   * Outcome classes: the route's exact success status is "reached the route" (its objects are fresh
   * where it uses them up, so every reaching request answers as the first one would).
   */
  private static String outcome(Route route, int status) {
    return status == route.okStatus() ? "reached" : Integer.toString(status);
  }

  /** The request, on fresh objects where the route uses them up and the role serves it. */
  private static Request request(SecurityWorld w, Role role, Route route) {
    SecurityWorld.Objects own = w.objects.get(SecurityWorld.OWN);
    if (route.roles().contains(role)) {
      own = route.prepare(w, own);
    }
    return route.builder().build(w, own);
  }

  /** The routes of one role, checked four at a time (the requests are independent). */
  private static int check(SecurityWorld w, Role role, List<String> failures) {
    List<String> found = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> counts = new ArrayList<>();
      for (Route route : RouteTable.ROUTES.values()) {
        counts.add(pool.submit(() -> check(w, role, route, found)));
      }
      int requests = 0;
      for (Future<Integer> c : counts) {
        requests += c.get();
      }
      return requests;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } finally {
      pool.shutdown();
      failures.addAll(found);
    }
  }

  private static int check(SecurityWorld w, Role role, Route route, List<String> failures) {
    int requests = 0;
    String user = route.allowedUser();
    Request canonical = request(w, role, route);
    RawHttp.Response base = send(w, canonical, canonical.path(), w.token(user));
    requests++;
    String expected = outcome(route, base.status());
    boolean served = route.roles().contains(role);
    if (served != expected.equals("reached")) {
      failures.add(
          role
              + " "
              + route.key()
              + ": canonical answer "
              + base.status()
              + " "
              + base.body()
              + (served ? " but the role serves it" : " but the role does not serve it"));
    }
    for (Map.Entry<String, UnaryOperator<String>> s : SPELLINGS.entrySet()) {
      // Fresh ids for each request, so a route reached twice answers as it would the first time.
      Request request = request(w, role, route);
      String path = s.getValue().apply(request.path());
      String where = role + " " + request.method() + " " + path + " (" + s.getKey() + ")";

      RawHttp.Response r = send(w, request, path, w.token(user));
      String got = outcome(route, r.status());
      // ".json" appended to an object id names another object, which does not exist: the route is
      // reached and answers "no such object" (409 conflict), exactly as for any unknown id.
      boolean otherObject =
          s.getKey().equals(".json suffix")
              && route.namesObject()
              && r.status() == 409
              && "conflict".equals(Answers.code(r));
      // A create-or-replace PUT given that other id creates it: 201 where the canonical replaced.
      boolean createdOther =
          s.getKey().equals(".json suffix")
              && request.method().equals("PUT")
              && base.status() == 200
              && r.status() == 201;
      if (!got.equals(expected)
          && !List.of("400", "404", "405").contains(got)
          && !otherObject
          && !createdOther) {
        failures.add(where + " as " + user + ": " + r.status() + ", canonical " + base.status());
      }
      Answers.shapeProblems(r).forEach(p -> failures.add(where + " as " + user + ": " + p));

      RawHttp.Response anonymous = send(w, request, path, null);
      if (anonymous.status() < 400 || anonymous.status() >= 500) {
        failures.add(where + " without a token: " + anonymous.status());
      }
      Answers.shapeProblems(anonymous).forEach(p -> failures.add(where + " without a token: " + p));

      requests += 2;
      if (role == Role.ALL && !route.anyCaller()) {
        // A member without permissions, where every route is served (a route for any caller lets
        // it in: the canonical answer above already holds the spelling to it).
        RawHttp.Response none = send(w, request, path, w.token(SecurityWorld.NONE));
        if (none.status() < 400 || none.status() >= 500 || none.status() == 409) {
          failures.add(where + " as " + SecurityWorld.NONE + ": " + none.status());
        }
        requests++;
      }
    }
    return requests;
  }

  private static RawHttp.Response send(SecurityWorld w, Request r, String path, String token) {
    return w.raw.request(r.method(), path, token, r.contentType(), r.body());
  }
}
