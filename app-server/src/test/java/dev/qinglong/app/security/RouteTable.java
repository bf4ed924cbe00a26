package dev.qinglong.app.security;

import static dev.qinglong.core.policy.Permission.APPROVAL_DECIDE;
import static dev.qinglong.core.policy.Permission.MODEL_INVOKE;
import static dev.qinglong.core.policy.Permission.MODEL_USAGE_READ;
import static dev.qinglong.core.policy.Permission.PACKAGE_MANAGE;
import static dev.qinglong.core.policy.Permission.PACKAGE_READ;
import static dev.qinglong.core.policy.Permission.PROJECT_ADMIN;

import dev.qinglong.app.platform.Role;
import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.policy.Permission;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;

/**
 * What the route tables of docs/api.md#routes say of every {@code /v1} route: who may call it,
 * which roles serve it, and one well-formed request for it. The suite derives its route list from
 * the running application (and the checked-in OpenAPI document) and fails when a route has no entry
 * here, so a new route cannot escape the authorization matrix.
 */
final class RouteTable {
  private RouteTable() {}

  static final Set<Role> WRITES = EnumSet.of(Role.ALL, Role.WRITER);
  static final Set<Role> MEMBER_READS = EnumSet.of(Role.ALL, Role.WRITER, Role.READER);
  static final Set<Role> DOWNLOADS = EnumSet.of(Role.ALL, Role.READER);

  /** One request: the body is bytes, its type given (null: no body). */
  record Request(String method, String path, String contentType, byte[] body) {
    static Request json(String method, String path, String json) {
      return new Request(
          method,
          path,
          json == null ? null : "application/json",
          json == null ? null : json.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Builds a well-formed request in Project {@code o.project()} on the objects {@code o}. */
  interface Builder {
    Request build(SecurityWorld w, SecurityWorld.Objects o);
  }

  /**
   * A route: its permissions ({@code anyOf}; empty = any permission in the Project), the roles that
   * serve it, whether its path or body names an existing object (then "object of another Project"
   * and "no such object" must be indistinguishable), a well-formed request, whether only global
   * administrators may call it (whatever they hold in a Project), whether its path names a Project,
   * whether it is a read a global administrator may make in every Project whatever it holds there,
   * and whether every authenticated caller is let in (whatever it holds).
   */
  record Route(
      String key,
      Set<Permission> anyOf,
      Set<Role> roles,
      boolean namesObject,
      Builder builder,
      boolean globalAdminOnly,
      boolean inProject,
      boolean globalAdminReads,
      boolean anyCaller) {
    /**
     * Whether a caller holding {@code held} in the path's Project is let in (a {@link
     * #globalAdminOnly} route, outside any Project or in one, only global administrators: see
     * {@link #permits(Set, boolean)}).
     */
    boolean permits(Set<Permission> held, boolean globalAdmin) {
      if (anyCaller) {
        return true;
      }
      if (globalAdminOnly) {
        return globalAdmin;
      }
      return (globalAdminReads && globalAdmin) || permits(held);
    }

    boolean permits(Set<Permission> held) {
      if (anyOf.isEmpty()) {
        return !held.isEmpty();
      }
      for (Permission p : anyOf) {
        if (held.contains(p)) {
          return true;
        }
      }
      return false;
    }

    String method() {
      return key.substring(0, key.indexOf(' '));
    }

    /**
     * The exact status of this route's well-formed request when the caller is let in and the
     * objects are {@link #prepare prepared}: 201 where it creates something, 200 otherwise.
     */
    int okStatus() {
      return switch (key) {
        case "POST " + P + "/plugin-packages/proposals",
            "POST " + P + "/step-runs",
            "POST " + P + "/model-invocations",
            "PUT " + P + "/artifacts/{digest}" ->
            201;
        case "DELETE " + P + "/webhooks/{webhookId}" -> 204;
        default -> 200;
      };
    }

    /**
     * The objects for a request that is expected to succeed: a route that uses its object up (a
     * decision, an admission, a completion, a recovery) gets a fresh one of {@code o.project()}, so
     * it succeeds with {@link #okStatus} however many callers went before; other routes get {@code
     * o} as it is. Seeds through the API: only for a Project the world owns, in a role that serves
     * writes.
     */
    SecurityWorld.Objects prepare(SecurityWorld w, SecurityWorld.Objects o) {
      return switch (key) {
        case "POST " + P + "/plugin-packages/approvals/{approvalId}/decisions" ->
            w.withFreshPendingApproval(o);
        case "POST " + P + "/model-invocations",
            "POST " + P + "/model-invocations/{invocationId}/completion",
            "POST " + P + "/step-runs/{stepRunId}/recovery" ->
            w.withFreshModelObjects(o);
        case "DELETE " + P + "/webhooks/{webhookId}" -> w.withWebhookToDelete(o);
        case "PUT " + P + "/webhooks/{webhookId}" -> w.withWebhookToReplace(o);
        default -> o;
      };
    }

    /** The user holding exactly the permission that opens this route in {@code p-own}. */
    String allowedUser() {
      if (globalAdminOnly) {
        return SecurityWorld.ADMIN;
      }
      Permission p = anyOf.isEmpty() ? PACKAGE_READ : anyOf.iterator().next();
      return SecurityWorld.memberOf(p);
    }
  }

  static final String P = "/v1/projects/{projectId}";

  /** The user whose management-quota override the well-formed request sets (nobody's member). */
  static final String QUOTA_SUBJECT = "quota-subject";

  static final Map<String, Route> ROUTES = new LinkedHashMap<>();

  private static void add(
      String method,
      String pattern,
      Set<Permission> anyOf,
      Set<Role> roles,
      boolean namesObject,
      Builder b) {
    String key = method + " " + pattern;
    ROUTES.put(key, new Route(key, anyOf, roles, namesObject, b, false, true, false, false));
  }

  /**
   * A read a global administrator may make in every Project (it reads every Project's proposals,
   * approvals and model usage) besides the callers holding one of {@code anyOf} there.
   */
  private static void addRead(
      String pattern, Set<Permission> anyOf, Set<Role> roles, boolean namesObject, Builder b) {
    String key = "GET " + pattern;
    ROUTES.put(key, new Route(key, anyOf, roles, namesObject, b, false, true, true, false));
  }

  /**
   * A route in a Project for global administrators only: a Project administrator is refused like
   * anyone else.
   */
  private static void addGlobalAdminOnly(
      String method, String pattern, Set<Role> roles, Builder b) {
    String key = method + " " + pattern;
    ROUTES.put(
        key,
        new Route(
            key, EnumSet.noneOf(Permission.class), roles, false, b, true, true, false, false));
  }

  /**
   * A route outside any Project, for global administrators only (the request ignores {@code o}).
   */
  private static void addGlobal(String method, String path, Set<Role> roles) {
    String key = method + " " + path;
    ROUTES.put(
        key,
        new Route(
            key,
            EnumSet.noneOf(Permission.class),
            roles,
            false,
            (w, o) -> Request.json(method, path, null),
            true,
            false,
            false,
            false));
  }

  private static String base(SecurityWorld.Objects o) {
    return "/v1/projects/" + o.project();
  }

  static {
    add(
        "POST",
        P + "/plugin-packages/proposals",
        EnumSet.of(PACKAGE_MANAGE),
        WRITES,
        false,
        (w, o) ->
            Request.json(
                "POST",
                base(o) + "/plugin-packages/proposals",
                "{\"actionRef\":\""
                    + w.fresh("ref")
                    + "\",\"action\":{\"type\":\"remove\",\"package\":\""
                    + w.fresh("pkg")
                    + "\",\"version\":\"1.0.0\"}}"));
    add(
        "POST",
        P + "/plugin-packages/approvals/{approvalId}/decisions",
        EnumSet.of(APPROVAL_DECIDE),
        WRITES,
        true,
        (w, o) ->
            Request.json(
                "POST",
                base(o) + "/plugin-packages/approvals/" + o.approvalId() + "/decisions",
                "{\"decisionId\":\""
                    + w.fresh("dec")
                    + "\",\"decision\":\"reject\",\"actionDigest\":\""
                    + o.actionDigest()
                    + "\"}"));
    add(
        "POST",
        P + "/plugin-packages/proposals/{proposalId}/inspections",
        EnumSet.of(PACKAGE_MANAGE, APPROVAL_DECIDE),
        WRITES,
        true,
        (w, o) ->
            Request.json(
                "POST",
                base(o) + "/plugin-packages/proposals/" + o.proposalId() + "/inspections",
                "{\"inspectionId\":\"" + w.fresh("insp") + "\"}"));
    addRead(
        P + "/plugin-packages/proposals",
        EnumSet.of(PACKAGE_READ, PACKAGE_MANAGE, APPROVAL_DECIDE),
        WRITES,
        false,
        (w, o) ->
            Request.json(
                "GET", base(o) + "/plugin-packages/proposals?state=pending&limit=5", null));
    addRead(
        P + "/plugin-packages/proposals/{proposalId}",
        EnumSet.of(PACKAGE_READ, PACKAGE_MANAGE, APPROVAL_DECIDE),
        WRITES,
        true,
        (w, o) ->
            Request.json("GET", base(o) + "/plugin-packages/proposals/" + o.proposalId(), null));
    addRead(
        P + "/plugin-packages/approvals/{approvalId}",
        EnumSet.of(PACKAGE_READ, PACKAGE_MANAGE, APPROVAL_DECIDE),
        WRITES,
        true,
        (w, o) ->
            Request.json("GET", base(o) + "/plugin-packages/approvals/" + o.approvalId(), null));
    add(
        "PUT",
        P + "/plugin-packages/approval-policy",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        false,
        (w, o) ->
            Request.json(
                "PUT", base(o) + "/plugin-packages/approval-policy", "{\"requiredApprovals\":1}"));
    add(
        "GET",
        P + "/plugin-packages/approval-policy",
        EnumSet.noneOf(Permission.class),
        WRITES,
        false,
        (w, o) -> Request.json("GET", base(o) + "/plugin-packages/approval-policy", null));
    add(
        "GET",
        P + "/management-quota",
        EnumSet.noneOf(Permission.class),
        WRITES,
        false,
        (w, o) -> Request.json("GET", base(o) + "/management-quota", null));
    // The limits set here are the world's own high ones: no other request runs into them.
    addGlobalAdminOnly(
        "PUT",
        P + "/management-quota/policy",
        WRITES,
        (w, o) ->
            Request.json(
                "PUT",
                base(o) + "/management-quota/policy",
                "{\"limits\":{\"plugin-package.propose\":1000},\"shadowLimits\":{}}"));
    addGlobalAdminOnly(
        "PUT",
        P + "/management-quota/users/{userId}",
        WRITES,
        (w, o) ->
            Request.json(
                "PUT",
                base(o) + "/management-quota/users/" + QUOTA_SUBJECT,
                "{\"limits\":{\"plugin-package.inspect\":1000}}"));
    add(
        "GET",
        P + "/management-quota/policy",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        false,
        (w, o) -> Request.json("GET", base(o) + "/management-quota/policy?limit=10", null));
    add(
        "GET",
        P + "/members",
        EnumSet.noneOf(Permission.class),
        MEMBER_READS,
        false,
        (w, o) -> Request.json("GET", base(o) + "/members", null));
    add(
        "GET",
        P + "/members/{userId}",
        EnumSet.noneOf(Permission.class),
        MEMBER_READS,
        true,
        (w, o) -> Request.json("GET", base(o) + "/members/" + o.memberId(), null));
    add(
        "PUT",
        P + "/members/{userId}",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        false,
        (w, o) ->
            Request.json(
                "PUT",
                base(o) + "/members/" + w.fresh("victim"),
                "{\"permissions\":[\"package.read\"]}"));
    add(
        "PUT",
        P + "/model-policies/{modelId}",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        false,
        (w, o) ->
            Request.json(
                "PUT",
                base(o) + "/model-policies/m1",
                "{\"maxTotalTokens\":100,\"maxCostMicros\":null}"));
    add(
        "PUT",
        P + "/model-quota",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        false,
        (w, o) ->
            Request.json(
                "PUT",
                base(o) + "/model-quota",
                "{\"window\":\"1d\",\"maxInvocations\":100000,\"maxTokens\":100000000,"
                    + "\"maxCostMicros\":null}"));
    add(
        "POST",
        P + "/step-runs",
        EnumSet.of(MODEL_INVOKE),
        WRITES,
        false,
        (w, o) ->
            Request.json(
                "POST",
                base(o) + "/step-runs",
                "{\"stepRunId\":\""
                    + w.fresh("s")
                    + "\",\"runId\":\""
                    + w.fresh("r")
                    + "\",\"modelId\":\"m1\"}"));
    add(
        "POST",
        P + "/model-invocations",
        EnumSet.of(MODEL_INVOKE),
        WRITES,
        true,
        (w, o) ->
            Request.json(
                "POST",
                base(o) + "/model-invocations",
                "{\"invocationId\":\""
                    + w.fresh("inv")
                    + "\",\"stepRunId\":\""
                    + o.readyStepRunId()
                    + "\"}"));
    add(
        "POST",
        P + "/model-invocations/{invocationId}/completion",
        EnumSet.of(MODEL_INVOKE),
        WRITES,
        true,
        (w, o) ->
            Request.json(
                "POST",
                base(o) + "/model-invocations/" + o.invocationId() + "/completion",
                "{\"outcome\":\"unknown\",\"usage\":null,\"costMicros\":null}"));
    add(
        "POST",
        P + "/step-runs/{stepRunId}/recovery",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        true,
        (w, o) ->
            Request.json(
                "POST",
                base(o)
                    + "/step-runs/"
                    + o.readyStepRunId().replace("s-ready-", "s-admitted-")
                    + "/recovery",
                null));
    add(
        "GET",
        P + "/step-runs/{stepRunId}",
        EnumSet.of(MODEL_INVOKE),
        WRITES,
        true,
        (w, o) -> Request.json("GET", base(o) + "/step-runs/" + o.readyStepRunId(), null));
    add(
        "GET",
        P + "/model-invocations/{invocationId}",
        EnumSet.of(MODEL_INVOKE),
        WRITES,
        true,
        (w, o) -> Request.json("GET", base(o) + "/model-invocations/" + o.invocationId(), null));
    add(
        "GET",
        P + "/artifacts/{digest}/upload",
        EnumSet.of(PACKAGE_MANAGE),
        WRITES,
        true,
        (w, o) ->
            Request.json("GET", base(o) + "/artifacts/" + o.digest().value() + "/upload", null));
    addRead(
        P + "/model-usage/window",
        EnumSet.of(MODEL_USAGE_READ),
        WRITES,
        false,
        (w, o) -> Request.json("GET", base(o) + "/model-usage/window", null));
    addRead(
        P + "/model-usage/ledger",
        EnumSet.of(MODEL_USAGE_READ),
        WRITES,
        false,
        (w, o) -> Request.json("GET", base(o) + "/model-usage/ledger?limit=10", null));
    add(
        "PUT",
        P + "/artifacts/{digest}",
        EnumSet.of(PACKAGE_MANAGE),
        WRITES,
        false,
        (w, o) ->
            new Request(
                "PUT",
                base(o) + "/artifacts/" + Sha256Digest.of(o.artifact()).value(),
                "application/octet-stream",
                o.artifact()));
    // Webhooks: project.admin. The PUT replaces an endpoint the Project has (200; see
    // SecurityWorld.withWebhookToReplace), so the cap of 10 is never reached however often it runs.
    add(
        "PUT",
        P + "/webhooks/{webhookId}",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        false,
        (w, o) ->
            Request.json(
                "PUT",
                base(o) + "/webhooks/" + SecurityWorld.WEBHOOK_PUT,
                SecurityWorld.WEBHOOK_BODY));
    add(
        "GET",
        P + "/webhooks",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        false,
        (w, o) -> Request.json("GET", base(o) + "/webhooks", null));
    add(
        "GET",
        P + "/webhooks/{webhookId}",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        true,
        (w, o) -> Request.json("GET", base(o) + "/webhooks/" + o.webhookId(), null));
    add(
        "DELETE",
        P + "/webhooks/{webhookId}",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        true,
        (w, o) -> Request.json("DELETE", base(o) + "/webhooks/" + o.webhookId(), null));
    add(
        "POST",
        P + "/webhooks/{webhookId}/rotate-secret",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        true,
        (w, o) ->
            Request.json("POST", base(o) + "/webhooks/" + o.webhookId() + "/rotate-secret", null));
    add(
        "POST",
        P + "/webhooks/{webhookId}/test",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        true,
        (w, o) -> Request.json("POST", base(o) + "/webhooks/" + o.webhookId() + "/test", null));
    add(
        "GET",
        P + "/webhooks/{webhookId}/deliveries",
        EnumSet.of(PROJECT_ADMIN),
        WRITES,
        true,
        (w, o) ->
            Request.json(
                "GET", base(o) + "/webhooks/" + o.webhookId() + "/deliveries?limit=5", null));
    // The caller's own permissions: every authenticated caller, in any Project, known or not.
    String me = P + "/me";
    ROUTES.put(
        "GET " + me,
        new Route(
            "GET " + me,
            EnumSet.noneOf(Permission.class),
            WRITES,
            false,
            (w, o) -> Request.json("GET", base(o) + "/me", null),
            false,
            true,
            false,
            true));
    addGlobal("GET", "/v1/downloads/gateways", MEMBER_READS);
    for (String m : new String[] {"GET", "HEAD"}) {
      add(
          m,
          P + "/artifacts/{digest}",
          EnumSet.of(PACKAGE_READ),
          DOWNLOADS,
          true,
          (w, o) -> Request.json(m, base(o) + "/artifacts/" + o.digest().value(), null));
    }
  }

  /** Every {@code METHOD /v1/...} route registered in the running app. */
  static TreeSet<String> registered(TestApp app) {
    TreeSet<String> routes = new TreeSet<>();
    RequestMappingHandlerMapping mapping =
        app.bean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class);
    for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
      for (String pattern : info.getPatternValues()) {
        if (pattern.startsWith("/v1")) {
          Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
          if (methods.isEmpty()) {
            routes.add("ANY " + pattern); // every method: must have an entry of its own
          }
          for (RequestMethod m : methods) {
            routes.add(m.name() + " " + pattern);
          }
        }
      }
    }
    return routes;
  }

  /** Every {@code METHOD /v1/...} operation of the checked-in OpenAPI document. */
  static TreeSet<String> documented() throws java.io.IOException {
    TreeSet<String> routes = new TreeSet<>();
    JsonNode doc = Http.JSON.readTree(Files.readString(Path.of("..", "docs", "openapi.json")));
    for (Map.Entry<String, JsonNode> path : doc.get("paths").properties()) {
      for (String method : path.getValue().propertyNames()) {
        routes.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
      }
    }
    return routes;
  }
}
