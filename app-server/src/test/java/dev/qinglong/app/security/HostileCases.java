package dev.qinglong.app.security;

import dev.qinglong.core.kernel.Sha256Digest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A seeded generator of hostile requests: each one breaks the contract in at least one definite way
 * (so it must be rejected with a 4xx other than 409) and carries a unique marker wherever the
 * attack puts text (member names, values, ids, headers), so reflection can be detected. Every case
 * also sends the marker in {@code User-Agent}. Deterministic for a seed: a failing case can be
 * replayed.
 */
final class HostileCases {
  /** One hostile request. */
  record Case(String category, String what, List<String> head, byte[] body, String marker) {
    String describe() {
      String text = body == null ? "" : new String(body, StandardCharsets.UTF_8);
      if (text.length() > 300) {
        text = text.substring(0, 300) + "…(" + body.length + " bytes)";
      }
      return category + " [" + what + "] " + String.join(" | ", head) + " | body: " + text;
    }

    /**
     * Whether the request is refused only after the durable quota step, by design
     * (docs/design.md#order-of-checks: validate → Policy → quota → mutate): an upload whose bytes
     * do not hash to its digest is found out while the body streams, after {@code artifact.upload}
     * counted it. It may count that one unit; it must change nothing else.
     */
    boolean rejectedAfterQuota() {
      return category.equals("upload") && what.equals("bytes that do not hash to the digest");
    }
  }

  enum Kind {
    ID,
    ENUM,
    DIGEST,
    TEXT,
    LONG,
    LONG_OPT,
    OBJECT,
    STRINGS
  }

  /** One member of a valid body; {@code children} for an object member. */
  record Member(String name, Kind kind, String valid, List<Member> children) {
    static Member of(String name, Kind kind, String valid) {
      return new Member(name, kind, valid, List.of());
    }

    Member with(String value) {
      return new Member(name, kind, value, children);
    }

    String json() {
      return kind == Kind.OBJECT && !children.isEmpty() ? render(children) : valid;
    }
  }

  /** A JSON route and who may call it in {@code p-own}. */
  record JsonRoute(
      String method, String path, String user, Function<HostileCases, List<Member>> body) {}

  static final List<String> CATEGORIES =
      List.of(
          "unknown-member",
          "duplicate-key",
          "wrong-type",
          "missing-member",
          "invalid-id",
          "invalid-digest",
          "huge-number",
          "deep-nesting",
          "oversized",
          "malformed-json",
          "unicode-control",
          "content-type",
          "header",
          "query",
          "upload");

  private final SecurityWorld world;
  private final Random random;
  private final List<JsonRoute> routes;
  private final List<JsonRoute> routesWithRequiredMembers;
  private int n;

  HostileCases(SecurityWorld world, long seed) {
    this.world = world;
    this.random = new Random(seed);
    SecurityWorld.Objects own = world.objects.get(SecurityWorld.OWN);
    String p = "/v1/projects/" + SecurityWorld.OWN;
    String digest = own.digest().value();
    this.routes =
        List.of(
            new JsonRoute(
                "POST",
                p + "/plugin-packages/proposals",
                "m-package-manage",
                h ->
                    List.of(
                        Member.of("actionRef", Kind.ID, h.q(h.fresh("ref"))),
                        new Member(
                            "action",
                            Kind.OBJECT,
                            null,
                            List.of(
                                Member.of("type", Kind.ENUM, "\"install\""),
                                Member.of("package", Kind.TEXT, h.q(h.fresh("pkg"))),
                                Member.of("version", Kind.TEXT, "\"1.0.0\""),
                                Member.of("artifactDigest", Kind.DIGEST, h.q(digest)))))),
            new JsonRoute(
                "POST",
                p + "/plugin-packages/approvals/" + own.approvalId() + "/decisions",
                "m-approval-decide",
                h ->
                    List.of(
                        Member.of("decisionId", Kind.ID, h.q(h.fresh("dec"))),
                        Member.of("decision", Kind.ENUM, "\"reject\""),
                        Member.of("actionDigest", Kind.DIGEST, h.q(own.actionDigest())))),
            new JsonRoute(
                "POST",
                p + "/plugin-packages/proposals/" + own.proposalId() + "/inspections",
                "m-package-manage",
                h -> List.of(Member.of("inspectionId", Kind.ID, h.q(h.fresh("insp"))))),
            new JsonRoute(
                "PUT",
                p + "/plugin-packages/approval-policy",
                "m-project-admin",
                h -> List.of(Member.of("requiredApprovals", Kind.LONG, "1"))),
            new JsonRoute(
                "PUT",
                p + "/members/victim",
                "m-project-admin",
                h -> List.of(Member.of("permissions", Kind.STRINGS, "[\"package.read\"]"))),
            new JsonRoute(
                "PUT",
                p + "/model-policies/m-hostile",
                "m-project-admin",
                h ->
                    List.of(
                        Member.of("maxTotalTokens", Kind.LONG, "100"),
                        Member.of("maxCostMicros", Kind.LONG_OPT, "null"))),
            new JsonRoute(
                "PUT",
                p + "/model-quota",
                "m-project-admin",
                h ->
                    List.of(
                        Member.of("window", Kind.ENUM, "\"1d\""),
                        Member.of("maxInvocations", Kind.LONG, "100000"),
                        Member.of("maxTokens", Kind.LONG, "100000000"),
                        Member.of("maxCostMicros", Kind.LONG_OPT, "null"))),
            new JsonRoute(
                "POST",
                p + "/step-runs",
                "m-model-invoke",
                h ->
                    List.of(
                        Member.of("stepRunId", Kind.ID, h.q(h.fresh("s"))),
                        Member.of("runId", Kind.ID, h.q(h.fresh("r"))),
                        Member.of("modelId", Kind.ID, "\"m1\""))),
            new JsonRoute(
                "POST",
                p + "/model-invocations",
                "m-model-invoke",
                h ->
                    List.of(
                        Member.of("invocationId", Kind.ID, h.q(h.fresh("inv"))),
                        Member.of("stepRunId", Kind.ID, h.q(own.readyStepRunId())))),
            new JsonRoute(
                "POST",
                p + "/model-invocations/" + own.invocationId() + "/completion",
                "m-model-invoke",
                h ->
                    List.of(
                        Member.of("outcome", Kind.ENUM, "\"succeeded\""),
                        new Member(
                            "usage",
                            Kind.OBJECT,
                            null,
                            List.of(
                                Member.of("inputTokens", Kind.LONG, "1"),
                                Member.of("outputTokens", Kind.LONG, "2"),
                                Member.of("totalTokens", Kind.LONG, "3"))),
                        Member.of("costMicros", Kind.LONG_OPT, "null"))),
            // Limits as data: every member optional (so never "missing"), the values those the
            // world already runs with.
            new JsonRoute(
                "PUT",
                p + "/management-quota/policy",
                SecurityWorld.ADMIN,
                h -> quotaLimits("plugin-package.propose")),
            new JsonRoute(
                "PUT",
                p + "/management-quota/users/" + RouteTable.QUOTA_SUBJECT,
                SecurityWorld.ADMIN,
                h -> quotaLimits("plugin-package.inspect")));
    this.routesWithRequiredMembers =
        routes.stream().filter(r -> hasRequired(r.body().apply(this))).toList();
  }

  /** A limits body: {@code operation} at the world's limit, and a shadow limit none can pass. */
  private static List<Member> quotaLimits(String operation) {
    return List.of(
        new Member(
            "limits", Kind.OBJECT, null, List.of(Member.of(operation, Kind.LONG_OPT, "1000"))),
        new Member(
            "shadowLimits",
            Kind.OBJECT,
            null,
            List.of(Member.of("plugin-package.decide", Kind.LONG_OPT, "1000"))));
  }

  /**
   * Whether a member may be left out of a valid body: an optional value, the unknown usage (absent
   * is unknown), and an object of optional members only.
   */
  private static boolean optional(Member m) {
    return m.kind() == Kind.LONG_OPT
        || m.name().equals("usage")
        || (m.kind() == Kind.OBJECT
            && !m.children().isEmpty()
            && m.children().stream().allMatch(HostileCases::optional));
  }

  /** Whether a body has a member it cannot do without, at any depth. */
  private static boolean hasRequired(List<Member> members) {
    return members.stream().anyMatch(m -> !optional(m) || hasRequired(m.children()));
  }

  String q(String s) {
    return "\"" + s + "\"";
  }

  String fresh(String prefix) {
    return world.fresh("h" + prefix);
  }

  private <T> T pick(List<T> items) {
    return items.get(random.nextInt(items.size()));
  }

  private String marker() {
    StringBuilder m = new StringBuilder("qlx");
    for (int i = 0; i < 9; i++) {
      m.append((char) ('a' + random.nextInt(26)));
    }
    return m.append(n).toString();
  }

  /** {@code count} cases, the categories in turn. */
  List<Case> generate(int count) {
    List<Case> cases = new ArrayList<>();
    for (n = 0; n < count; n++) {
      String category = CATEGORIES.get(n % CATEGORIES.size());
      cases.add(generate(category, marker()));
    }
    return cases;
  }

  // ---- bodies
  // -------------------------------------------------------------------------------------

  static String render(List<Member> members) {
    return members.stream()
        .map(m -> "\"" + m.name() + "\":" + m.json())
        .collect(Collectors.joining(",", "{", "}"));
  }

  /** Replaces (or with {@code remove}, drops) one member, top level or nested; returns its name. */
  private String mutate(List<Member> members, Function<Member, String> value, boolean remove) {
    return mutate(members, value, remove, false);
  }

  /** With {@code leavesOnly}, an object member is never the one replaced (its members may be). */
  private String mutate(
      List<Member> members, Function<Member, String> value, boolean remove, boolean leavesOnly) {
    List<int[]> spots = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      if (!leavesOnly || members.get(i).children().isEmpty()) {
        spots.add(new int[] {i, -1});
      }
      for (int j = 0; j < members.get(i).children().size(); j++) {
        spots.add(new int[] {i, j});
      }
    }
    // Optional members may be absent: only required ones are removed.
    if (remove) {
      spots.removeIf(s -> optional(target(members, s)));
    }
    int[] spot = pick(spots);
    Member m = target(members, spot);
    if (spot[1] < 0) {
      if (remove) {
        members.remove(spot[0]);
      } else {
        members.set(spot[0], new Member(m.name(), Kind.TEXT, value.apply(m), List.of()));
      }
    } else {
      Member parent = members.get(spot[0]);
      List<Member> children = new ArrayList<>(parent.children());
      if (remove) {
        children.remove(spot[1]);
      } else {
        children.set(spot[1], m.with(value.apply(m)));
      }
      members.set(spot[0], new Member(parent.name(), Kind.OBJECT, null, children));
    }
    return m.name();
  }

  private static Member target(List<Member> members, int[] spot) {
    Member top = members.get(spot[0]);
    return spot[1] < 0 ? top : top.children().get(spot[1]);
  }

  /** Whether a body has a digest member, at any depth. */
  private static boolean hasDigest(List<Member> members) {
    return members.stream().anyMatch(m -> m.kind() == Kind.DIGEST || hasDigest(m.children()));
  }

  private List<Member> valid(JsonRoute route) {
    return new ArrayList<>(route.body().apply(this));
  }

  private String wrongType(Member m, String marker) {
    return switch (m.kind()) {
      case ID, ENUM, DIGEST, TEXT ->
          pick(
              List.of(
                  "12345",
                  "true",
                  "1.5",
                  "[\"" + marker + "\"]",
                  "{\"" + marker + "\":1}",
                  "null"));
      case LONG ->
          pick(List.of("\"" + marker + "\"", "true", "[1]", "{}", "1.5", "\"100\"", "null"));
      case LONG_OPT -> pick(List.of("\"" + marker + "\"", "true", "[1]", "{}", "2.5", "\"5\""));
      case OBJECT -> pick(List.of("\"" + marker + "\"", "[]", "5", "true"));
      case STRINGS ->
          pick(
              List.of(
                  "\"package.read\"",
                  "[1]",
                  "[[\"package.read\"]]",
                  "{\"0\":\"package.read\"}",
                  "[\"" + marker + "\"]",
                  "null"));
    };
  }

  /** Another value of the member's kind that is valid on its own (for duplicate keys). */
  private String otherValid(Member m, String marker) {
    return switch (m.kind()) {
      case ID, TEXT -> q(marker);
      case ENUM -> m.valid().equals("\"reject\"") ? "\"approve\"" : m.valid();
      case DIGEST -> q(Sha256Digest.of(marker.getBytes(StandardCharsets.UTF_8)).value());
      case LONG -> "7";
      case LONG_OPT -> "5";
      case OBJECT -> m.json();
      case STRINGS -> "[\"project.admin\"]";
    };
  }

  private Case json(
      String category,
      String what,
      JsonRoute route,
      String contentType,
      byte[] body,
      String marker) {
    return json(category, what, route, route.path(), contentType, body, marker, List.of());
  }

  private Case json(
      String category,
      String what,
      JsonRoute route,
      String path,
      String contentType,
      byte[] body,
      String marker,
      List<String> extraHeaders) {
    List<String> head = new ArrayList<>();
    head.add(route.method() + " " + path + " HTTP/1.1");
    head.add("Authorization: Bearer " + world.token(route.user()));
    head.add("User-Agent: " + marker);
    if (contentType != null) {
      head.add("Content-Type: " + contentType);
    }
    head.addAll(extraHeaders);
    if (body != null && extraHeaders.stream().noneMatch(h -> h.startsWith("Content-Length"))) {
      head.add("Content-Length: " + body.length);
    }
    return new Case(
        category, what + " on " + route.method() + " " + route.path(), head, body, marker);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private Case generate(String category, String marker) {
    // A body without a required member has nothing to leave out.
    JsonRoute route = pick(category.equals("missing-member") ? routesWithRequiredMembers : routes);
    List<Member> body = valid(route);
    String ct = "application/json";
    switch (category) {
      case "unknown-member" -> {
        String suffix =
            pick(List.of("", "\\u00e9", "\\u202e", " x", "\\u0000", "$where", "__proto__"));
        String member = "\"" + marker + suffix + "\":" + pick(List.of("1", "null", "\"x\"", "{}"));
        String text = render(body);
        if (random.nextBoolean() || body.stream().noneMatch(m -> !m.children().isEmpty())) {
          text = text.substring(0, text.length() - 1) + "," + member + "}";
        } else {
          Member parent = body.stream().filter(m -> !m.children().isEmpty()).findFirst().get();
          String inner = render(parent.children());
          text = text.replace(inner, inner.substring(0, inner.length() - 1) + "," + member + "}");
        }
        return json(category, "member " + marker + suffix, route, ct, utf8(text), marker);
      }
      case "duplicate-key" -> {
        // The same member twice, both values valid: last-wins parsing would accept either.
        int i = random.nextInt(body.size());
        Member m = body.get(i);
        String first = m.json();
        String second = otherValid(m, marker);
        if (m.kind() == Kind.ENUM && first.equals(second)) {
          second = first;
        }
        String dup = "\"" + m.name() + "\":" + (random.nextBoolean() ? second : first);
        String text = render(body);
        String own = "\"" + m.name() + "\":" + first;
        text = text.replace(own, random.nextBoolean() ? own + "," + dup : dup + "," + own);
        return json(category, "duplicate " + m.name(), route, ct, utf8(text), marker);
      }
      case "wrong-type" -> {
        String name = mutate(body, m -> wrongType(m, marker), false);
        return json(category, "wrong type of " + name, route, ct, utf8(render(body)), marker);
      }
      case "missing-member" -> {
        String name = mutate(body, m -> null, true);
        return json(category, "without " + name, route, ct, utf8(render(body)), marker);
      }
      case "invalid-id" -> {
        String bad =
            pick(
                List.of(
                    marker + " x",
                    marker + "/../x",
                    marker + "\\u0000",
                    marker + "é",
                    marker + "\\u202e",
                    "<script>" + marker + "</script>",
                    "' OR '1'='1 " + marker,
                    marker + "%2e%2e",
                    marker + "a".repeat(129),
                    marker + "\\n"));
        if (random.nextInt(3) == 0) {
          // An id in the path: the project or the object segment.
          String enc =
              pick(
                  List.of(
                      marker + "%20x",
                      "%3Cscript%3E" + marker,
                      marker + "%C3%A9",
                      marker + "%27",
                      marker + "a".repeat(129),
                      marker + "%E2%80%AE",
                      marker + "*"));
          String path = route.path().replace("/" + SecurityWorld.OWN + "/", "/" + enc + "/");
          return json(
              category, "path id " + enc, route, path, ct, utf8(render(body)), marker, List.of());
        }
        List<Member> ids = new ArrayList<>();
        String name =
            mutate(
                body,
                m -> m.kind() == Kind.ID || m.kind() == Kind.TEXT ? q(bad) : m.json(),
                false,
                true);
        if (render(body).contains(marker)) {
          return json(category, name + "=" + bad, route, ct, utf8(render(body)), marker);
        }
        // The picked member held no id: put the bad id in the first id member there is.
        for (Member m : valid(route)) {
          ids.add(m.kind() == Kind.ID || m.kind() == Kind.TEXT ? m.with(q(bad)) : m);
        }
        String text = render(ids);
        if (!text.contains(marker)) {
          text = text.replace("\"1.0.0\"", q(bad));
        }
        if (!text.contains(marker)) {
          return json(
              category,
              "wrong-type id",
              route,
              ct,
              utf8("{\"" + marker + "\":" + text + "}"),
              marker);
        }
        return json(category, "ids=" + bad, route, ct, utf8(text), marker);
      }
      case "invalid-digest" -> {
        String hex = "0123456789abcdef".repeat(4);
        String bad =
            pick(
                List.of(
                    "sha256:" + hex.toUpperCase(),
                    "sha256:" + hex.substring(1),
                    "sha256:" + hex + "0",
                    "md5:" + hex.substring(32),
                    "sha256:" + marker,
                    "SHA256:" + hex,
                    "sha256:" + hex + "\\n" + marker,
                    marker));
        if (hasDigest(body)) {
          mutate(body, m -> m.kind() == Kind.DIGEST ? q(bad) : m.json(), false, true);
          String text = render(body);
          if (!text.contains(bad)) {
            text = render(valid(route)).replaceAll("sha256:[0-9a-f]{64}", bad);
          }
          return json(category, "digest " + bad, route, ct, utf8(text), marker);
        }
        // Routes without a digest member: the artifact download path.
        List<String> head = new ArrayList<>();
        String enc = bad.replace("\\n", "%0A");
        head.add("GET /v1/projects/" + SecurityWorld.OWN + "/artifacts/" + enc + " HTTP/1.1");
        head.add("Authorization: Bearer " + world.token("m-package-read"));
        head.add("User-Agent: " + marker);
        return new Case(category, "download digest " + enc, head, null, marker);
      }
      case "huge-number" -> {
        String bad =
            pick(
                List.of(
                    "1e400",
                    "123456789012345678901234567890",
                    "-1",
                    "9223372036854775807",
                    "9223372036854775808",
                    "-9223372036854775809",
                    "1.0",
                    "1E+2",
                    "0x10",
                    "NaN",
                    "Infinity",
                    "01",
                    "-0.0"));
        String name =
            mutate(
                body,
                m ->
                    m.kind() == Kind.LONG || m.kind() == Kind.LONG_OPT
                        ? bad
                        : m.kind() == Kind.OBJECT ? m.json() : bad,
                false,
                true);
        return json(category, name + "=" + bad, route, ct, utf8(render(body)), marker);
      }
      case "deep-nesting" -> {
        int depth = pick(List.of(64, 600, 2_000, 20_000, 40_000));
        boolean arrays = random.nextBoolean();
        String deep =
            arrays
                ? "[".repeat(depth) + q(marker) + "]".repeat(depth)
                : "{\"a\":".repeat(depth) + q(marker) + "}".repeat(depth);
        String name = mutate(body, m -> deep, false);
        return json(
            category,
            name + " nested " + depth + (arrays ? " arrays" : " objects"),
            route,
            ct,
            utf8(render(body)),
            marker);
      }
      case "oversized" -> {
        int size = pick(List.of(65_537, 70_000, 200_000, 1_000_000));
        String text;
        String what;
        if (random.nextBoolean()) {
          String filler = (marker + " ").repeat(size / (marker.length() + 1) + 1);
          String name = mutate(body, m -> q(filler), false);
          text = render(body);
          what = name + " of " + size + " bytes";
        } else {
          // Valid JSON whose only fault is its size (whitespace), then the marker in a member.
          text = " ".repeat(size) + render(body).replaceFirst("\\{", "{\"" + marker + "\":1,");
          what = size + " bytes of whitespace";
        }
        return json(category, what, route, ct, utf8(text), marker);
      }
      case "malformed-json" -> {
        String valid = render(body);
        int variant = random.nextInt(14);
        byte[] bytes;
        String what;
        switch (variant) {
          case 0 -> {
            bytes = utf8(valid.substring(0, 1 + random.nextInt(valid.length() - 2)) + marker);
            what = "truncated";
          }
          case 1 -> {
            bytes = utf8(valid + " " + marker);
            what = "trailing garbage";
          }
          case 2 -> {
            bytes = utf8(valid + "{\"" + marker + "\":1}");
            what = "two documents";
          }
          case 3 -> {
            bytes = utf8("/*" + marker + "*/" + valid);
            what = "comment";
          }
          case 4 -> {
            bytes = utf8(valid.replace('"', '\'').replaceFirst("\\{", "{'" + marker + "':1,"));
            what = "single quotes";
          }
          case 5 -> {
            bytes = utf8(valid.substring(0, valid.length() - 1) + ",\"" + marker + "\":1,}");
            what = "trailing comma";
          }
          case 6 -> {
            bytes = utf8(valid.replaceFirst("\\{", "{" + marker + ":1,"));
            what = "unquoted name";
          }
          case 7 -> {
            bytes = new byte[0];
            what = "empty body";
          }
          case 8 -> {
            bytes = utf8(pick(List.of("null", "[]", q(marker), "123", "true", "[" + valid + "]")));
            what = "not an object";
          }
          case 9 -> {
            bytes =
                concat(
                    utf8(valid.substring(0, valid.length() - 1) + ",\"" + marker + "\":\""),
                    new byte[] {(byte) 0xff, (byte) 0xfe},
                    utf8("\"}"));
            what = "invalid UTF-8";
          }
          case 10 -> {
            bytes =
                concat(
                    utf8(valid.substring(0, valid.length() - 1) + ",\"" + marker),
                    new byte[] {(byte) 0xc0, (byte) 0xae},
                    utf8("\":1}"));
            what = "overlong UTF-8";
          }
          case 11 -> {
            bytes = utf8(valid.substring(0, valid.length() - 1) + ",\"" + marker + "\u0001\":1}");
            what = "raw control character";
          }
          case 12 -> {
            bytes =
                concat(
                    utf8(valid.substring(0, valid.length() - 1) + ",\"" + marker),
                    new byte[] {0},
                    utf8("\":1}"));
            what = "NUL byte";
          }
          default -> {
            bytes = utf8(valid.replaceFirst("\\{", "{\"" + marker + "\":NaN,"));
            what = "NaN literal";
          }
        }
        return json(category, what, route, ct, bytes, marker);
      }
      case "unicode-control" -> {
        String bad =
            marker
                + pick(
                    List.of(
                        "\\u0000",
                        "\\ud800",
                        "\\udfff\\ud800",
                        "\\u202e",
                        "\\u200b",
                        "\\ufeff",
                        "é",
                        "\\u000a",
                        "\\u001b[31m",
                        "😀",
                        "ｒｅｆ",
                        "\\u0085"));
        String name =
            mutate(
                body,
                m ->
                    switch (m.kind()) {
                      case ID, TEXT, ENUM, DIGEST -> q(bad);
                      case STRINGS -> "[" + q(bad) + "]";
                      case OBJECT -> "{" + q(bad) + ":1}";
                      default -> q(bad);
                    },
                false,
                true);
        return json(category, name + "=" + bad, route, ct, utf8(render(body)), marker);
      }
      case "content-type" -> {
        String type =
            pick(
                List.of(
                    "text/plain",
                    "application/x-www-form-urlencoded",
                    "multipart/form-data; boundary=" + marker,
                    "application/xml",
                    "application/json-patch+json",
                    "application/*",
                    "*/*",
                    "application/octet-stream",
                    "text/json",
                    "application/json; charset=" + marker,
                    "application/" + marker,
                    "NONE"));
        byte[] bytes =
            type.equals("application/x-www-form-urlencoded")
                ? utf8("actionRef=" + marker + "&permissions=project.admin")
                : utf8(render(body));
        return json(
            category,
            "Content-Type " + type,
            route,
            type.equals("NONE") ? null : type,
            bytes,
            marker);
      }
      case "header" -> {
        return header(route, body, marker);
      }
      case "query" -> {
        String query =
            pick(
                List.of(
                    "limit=" + marker,
                    "limit=-1",
                    "limit=0",
                    "limit=501",
                    "limit=99999999999999",
                    "limit=1e2",
                    "limit=%20" + marker,
                    "cursor=" + marker,
                    "cursor=",
                    "cursor=" + Base64.getUrlEncoder().encodeToString(utf8("{\"seq\":0," + marker)),
                    "cursor=%00" + marker,
                    "limit=10&cursor=" + marker));
        // Two lists with the same bounds (limit 1..500, an issued cursor).
        boolean ledger = random.nextBoolean();
        List<String> head = new ArrayList<>();
        head.add(
            "GET /v1/projects/"
                + SecurityWorld.OWN
                + (ledger ? "/model-usage/ledger?" : "/management-quota/policy?")
                + query
                + " HTTP/1.1");
        head.add(
            "Authorization: Bearer "
                + world.token(ledger ? "m-model-usage-read" : "m-project-admin"));
        head.add("User-Agent: " + marker);
        return new Case(
            category, (ledger ? "ledger ?" : "quota policy ?") + query, head, null, marker);
      }
      case "upload" -> {
        return upload(marker);
      }
      default ->
          throw new IllegalStateException("unknown category " + category + ". Indicates a bug.");
    }
  }

  private Case header(JsonRoute route, List<Member> body, String marker) {
    String valid = render(body);
    // With a body fault added, the only acceptable answer is a rejection whatever the header does.
    String faulty = valid.substring(0, valid.length() - 1) + ",\"zz\":1}";
    String token = world.token(route.user());
    int variant = random.nextInt(16);
    List<String> head = new ArrayList<>();
    head.add(route.method() + " " + route.path() + " HTTP/1.1");
    head.add("User-Agent: " + marker);
    head.add("Content-Type: application/json");
    String what;
    String text = valid;
    switch (variant) {
      case 0 -> {
        head.add("Authorization: Bearer " + token);
        head.add("Authorization: Bearer " + world.token(SecurityWorld.NONE));
        what = "two Authorization headers (two users)";
      }
      case 1 -> {
        head.add("Authorization: Bearer " + token);
        head.add("Authorization: Bearer " + marker);
        what = "two Authorization headers (valid, bogus)";
      }
      case 2 -> {
        head.add("Authorization: Bearer " + marker);
        what = "unknown token";
      }
      case 3 -> {
        head.add(
            "Authorization: Basic "
                + Base64.getEncoder().encodeToString(utf8(marker + ":" + marker)));
        what = "Basic credentials";
      }
      case 4 -> {
        head.add("Authorization: Bearer " + token + " " + marker);
        what = "token with trailing text";
      }
      case 5 -> {
        head.add("Authorization: Bearer " + "a".repeat(10_000) + marker);
        what = "10 KB token";
      }
      case 6 -> {
        head.add("Authorization: Bearer " + token);
        head.add("X-Forwarded-For: " + marker);
        head.add("X-Forwarded-Host: " + marker + ".example");
        head.add("X-Forwarded-Proto: " + marker);
        head.add("Forwarded: for=" + marker + ";host=" + marker);
        text = faulty;
        what = "forwarding headers";
      }
      case 7 -> {
        head.add("Authorization: Bearer " + token);
        head.add("X-Request-Id: " + marker);
        head.add("Accept: " + marker + "/x");
        head.add("Accept-Language: " + marker);
        head.add("Origin: http://" + marker + ".example");
        head.add("Cookie: JSESSIONID=" + marker);
        text = faulty;
        what = "request id, Accept, Origin, Cookie";
      }
      case 8 -> {
        head.add("Authorization: Bearer " + token);
        head.add("Transfer-Encoding: chunked");
        head.add("Content-Length: 3");
        text = faulty;
        byte[] b = utf8(text);
        byte[] chunked = utf8(Integer.toHexString(b.length) + "\r\n" + text + "\r\n0\r\n\r\n");
        return new Case(
            "header",
            "Transfer-Encoding and Content-Length on " + route.path(),
            head,
            chunked,
            marker);
      }
      case 9 -> {
        head.add("Authorization: Bearer " + token);
        head.add("Content-Length: " + utf8(faulty).length);
        head.add("Content-Length: 5");
        return new Case(
            "header", "two Content-Length on " + route.path(), head, utf8(faulty), marker);
      }
      case 10 -> {
        head.add("Authorization: Bearer " + token);
        head.add("Content-Length: " + marker);
        return new Case("header", "Content-Length " + marker, head, utf8(valid), marker);
      }
      case 11 -> {
        head.add("Authorization: Bearer " + token);
        head.add("X-QL-Note: a\nSet-Cookie: " + marker + "=1");
        text = faulty;
        what = "bare LF header injection";
      }
      case 12 -> {
        head.add("Authorization: Bearer " + token);
        head.add("X-" + marker + "(): 1");
        text = faulty;
        what = "invalid header name";
      }
      case 13 -> {
        head.add("Authorization: Bearer " + token);
        head.add("Host: " + marker + ":99999");
        text = faulty;
        what = "bad Host";
      }
      case 14 -> {
        head.set(0, "TRACE " + route.path() + " HTTP/1.1");
        head.add("Authorization: Bearer " + token);
        head.add("X-Trace-Me: " + marker);
        return new Case("header", "TRACE " + route.path(), head, null, marker);
      }
      default -> {
        head.add("Authorization: Bearer " + token);
        head.add("X-HTTP-Method-Override: DELETE");
        head.add("X-Original-URL: /" + marker);
        head.add("X-Rewrite-URL: /" + marker);
        text = faulty;
        what = "method and URL override headers";
      }
    }
    byte[] bytes = utf8(text);
    head.add("Content-Length: " + bytes.length);
    return new Case(
        "header", what + " on " + route.method() + " " + route.path(), head, bytes, marker);
  }

  private Case upload(String marker) {
    byte[] content = utf8("artifact " + marker);
    Sha256Digest d = Sha256Digest.of(content);
    String path = "/v1/projects/" + SecurityWorld.OWN + "/artifacts/";
    String token = world.token("m-package-manage");
    List<String> head = new ArrayList<>();
    head.add("User-Agent: " + marker);
    int variant = random.nextInt(7);
    switch (variant) {
      case 0 -> {
        head.add(0, "PUT " + path + d.value() + " HTTP/1.1");
        head.add("Authorization: Bearer " + token);
        head.add("Content-Type: application/octet-stream");
        byte[] other = utf8("other bytes " + marker);
        head.add("Content-Length: " + other.length);
        return new Case("upload", "bytes that do not hash to the digest", head, other, marker);
      }
      case 1, 2, 3 -> {
        String type =
            List.of(
                    "application/x-www-form-urlencoded",
                    "application/json",
                    "multipart/form-data; boundary=" + marker)
                .get(variant - 1);
        head.add(0, "PUT " + path + d.value() + " HTTP/1.1");
        head.add("Authorization: Bearer " + token);
        head.add("Content-Type: " + type);
        head.add("Content-Length: " + content.length);
        return new Case("upload", "upload as " + type, head, content, marker);
      }
      case 4 -> {
        // Before authentication: a form body, chunked, must be neither parsed nor stored.
        head.add(0, "PUT " + path + d.value() + " HTTP/1.1");
        head.add("Content-Type: application/x-www-form-urlencoded");
        head.add("Transfer-Encoding: chunked");
        String form = marker + "=" + "x".repeat(50_000);
        byte[] b = utf8(Integer.toHexString(form.length()) + "\r\n" + form + "\r\n0\r\n\r\n");
        return new Case("upload", "unauthenticated chunked form body", head, b, marker);
      }
      case 5 -> {
        head.add(0, "PUT " + path + "sha256:" + marker + " HTTP/1.1");
        head.add("Authorization: Bearer " + token);
        head.add("Content-Type: application/octet-stream");
        head.add("Content-Length: " + content.length);
        return new Case("upload", "invalid digest in the path", head, content, marker);
      }
      default -> {
        head.add(0, "PUT " + path + d.value() + " HTTP/1.1");
        head.add("Authorization: Bearer " + world.token("m-package-read"));
        head.add("Content-Type: application/octet-stream");
        head.add("Content-Length: " + content.length);
        return new Case("upload", "upload without package.manage", head, content, marker);
      }
    }
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
