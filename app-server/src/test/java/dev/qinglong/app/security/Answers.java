package dev.qinglong.app.security;

import dev.qinglong.app.support.Http;
import dev.qinglong.testkit.RawHttp;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** What every answer of the API must look like (docs/api.md#errors), as reusable checks. */
final class Answers {
  private Answers() {}

  /** Text that only an exception, a stack trace, SQL or a container error page would carry. */
  static final List<String> LEAK_MARKERS =
      List.of(
          "Exception",
          "\tat ",
          "at dev.",
          "at org.",
          "at java.",
          "java.lang",
          "org.springframework",
          "org.apache",
          "SQLITE_",
          "SQLState",
          "<html",
          "<!doctype",
          "Apache Tomcat");

  /** The problems of one answer's shape; empty if it is fine. */
  static List<String> shapeProblems(RawHttp.Response r) {
    List<String> problems = new ArrayList<>();
    if (r.status() < 0) {
      problems.add("no HTTP answer at all (connection closed)");
      return problems;
    }
    String all = r.all();
    for (String marker : LEAK_MARKERS) {
      if (all.toLowerCase(Locale.ROOT).contains(marker.toLowerCase(Locale.ROOT))) {
        problems.add("answer contains '" + marker.strip() + "'");
      }
    }
    if (r.status() >= 400 && !r.body().isEmpty()) {
      if (!r.contentType().startsWith("application/problem+json")) {
        problems.add("error answer is " + r.contentType() + ", not application/problem+json");
      } else if (code(r) == null) {
        problems.add("problem document without error.code");
      }
    }
    return problems;
  }

  /** The problem's {@code error.code}, or null. */
  static String code(RawHttp.Response r) {
    JsonNode json = json(r);
    return json == null || json.get("error") == null || json.get("error").get("code") == null
        ? null
        : json.get("error").get("code").asString();
  }

  static JsonNode json(RawHttp.Response r) {
    if (!r.contentType().contains("json") || r.body().isEmpty()) {
      return null;
    }
    try {
      return Http.JSON.readTree(r.body());
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * What a client can tell two answers apart by: status, content type and body (a problem's {@code
   * instance}, a per-request id, left out).
   */
  static String comparable(RawHttp.Response r) {
    JsonNode json = json(r);
    String body = r.body();
    if (json instanceof ObjectNode o) {
      o.remove("instance");
      body = o.toString();
    }
    String type = r.contentType();
    return r.status() + " " + type + " " + body;
  }
}
