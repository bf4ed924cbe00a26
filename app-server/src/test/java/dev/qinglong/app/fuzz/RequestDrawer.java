package dev.qinglong.app.fuzz;

import dev.qinglong.core.kernel.Sha256Digest;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Draws requests from the operations of an OpenAPI document: path, query and header parameters and
 * a body, each valid under its declared schema. A parameter marked {@code "x-qinglong-issued":
 * true} takes only a value this operation's answers carried before, under a member whose name ends
 * with the parameter's (a {@code cursor} from a {@code nextCursor}), or is left out.
 */
final class RequestDrawer {
  /** One operation of the document, with the parameters its path item declares for all. */
  record Operation(String method, String path, JsonNode spec, JsonNode pathItem) {
    String key() {
      return method + " " + path;
    }

    /** The path item's parameters, then the operation's (which override by name and place). */
    Collection<JsonNode> parameters(SchemaSampler sampler) {
      Map<String, JsonNode> out = new LinkedHashMap<>();
      for (JsonNode list : List.of(pathItem.path("parameters"), spec.path("parameters"))) {
        list.forEach(
            p -> {
              JsonNode r = sampler.resolve(p);
              out.put(r.path("in").asString() + " " + r.path("name").asString(), r);
            });
      }
      return out.values();
    }
  }

  /** A drawn request: what is sent, and each drawn value by where it went (for a finding). */
  record Drawn(
      Operation operation,
      String uri,
      Map<String, String> headers,
      String contentType,
      byte[] body,
      Map<String, String> values) {
    @Override
    public String toString() {
      return operation.key() + " " + values;
    }
  }

  private final SchemaSampler sampler;
  private final Random random;
  private final Map<String, Set<String>> issued = new HashMap<>();

  RequestDrawer(SchemaSampler sampler, Random random) {
    this.sampler = sampler;
    this.random = random;
  }

  static List<Operation> operations(JsonNode doc) {
    List<Operation> out = new ArrayList<>();
    for (Map.Entry<String, JsonNode> path : doc.path("paths").properties()) {
      for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
        if (op.getValue().has("responses")) {
          out.add(
              new Operation(
                  op.getKey().toUpperCase(Locale.ROOT),
                  path.getKey(),
                  op.getValue(),
                  path.getValue()));
        }
      }
    }
    return out;
  }

  /** Keeps the values an answer of {@code operation} issued for its issued-only parameters. */
  void answered(Operation operation, JsonNode body) {
    for (JsonNode p : operation.parameters(sampler)) {
      if (p.path("x-qinglong-issued").asBoolean(false)) {
        issued
            .computeIfAbsent(
                operation.key() + " " + p.path("name").asString(), k -> new LinkedHashSet<>())
            .addAll(KnownValues.strings(body, p.path("name").asString()));
      }
    }
  }

  /**
   * A request valid under the document, or empty (with the reason) if a value could not be drawn.
   */
  Drawn draw(Operation op, List<String> failures) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> headers = new LinkedHashMap<>();
    StringBuilder query = new StringBuilder();
    String path = op.path();
    byte[] body = null;
    String contentType = null;
    JsonNode requestBody = sampler.resolve(op.spec().path("requestBody"));
    List<String> media = new ArrayList<>(requestBody.path("content").propertyNames());
    if (!media.isEmpty()
        && (requestBody.path("required").asBoolean(false) || random.nextDouble() < 0.8)) {
      contentType = media.get(random.nextInt(media.size()));
      if (contentType.endsWith("json")) {
        JsonNode schema = requestBody.path("content").path(contentType).path("schema");
        Optional<JsonNode> json = sampler.draw(schema, null, 0.5, RequestDrawer::bindRelations);
        if (json.isEmpty()) {
          failures.add(op.key() + ": no valid body drawn");
          return null;
        }
        body = json.get().toString().getBytes(StandardCharsets.UTF_8);
        values.put("body", json.get().toString());
      } else {
        body = new byte[random.nextInt(256)];
        random.nextBytes(body);
        values.put("body", body.length + " bytes");
      }
    }
    for (JsonNode p : op.parameters(sampler)) {
      String name = p.path("name").asString();
      String in = p.path("in").asString();
      List<String> value;
      if (p.path("x-qinglong-issued").asBoolean(false)) {
        List<String> pool = new ArrayList<>(issued.getOrDefault(op.key() + " " + name, Set.of()));
        if (pool.isEmpty() || random.nextDouble() < 0.3) {
          continue;
        }
        value = List.of(pool.get(random.nextInt(pool.size())));
      } else if (!p.path("required").asBoolean(in.equals("path")) && random.nextDouble() < 0.4) {
        continue;
      } else if (in.equals("path")
          && name.equals("digest")
          && values.containsKey("body")
          && !contentType.endsWith("json")) {
        // The one relation a schema cannot state: an upload's path names its bytes' digest.
        value = List.of(Sha256Digest.of(body).value());
      } else {
        // Paths name objects: mostly ones that exist.
        Optional<JsonNode> drawn =
            sampler.draw(p.path("schema"), name, in.equals("path") ? 0.85 : 0.5);
        if (drawn.isEmpty()) {
          failures.add(op.key() + ": no valid value drawn for " + in + " parameter " + name);
          return null;
        }
        value = new ArrayList<>();
        for (JsonNode v : drawn.get().isArray() ? drawn.get() : List.of(drawn.get())) {
          value.add(v.isString() ? v.asString() : v.toString());
        }
      }
      values.put(in + " " + name, String.join(",", value));
      switch (in) {
        case "path" ->
            path =
                path.replace(
                    "{" + name + "}",
                    String.join(",", value.stream().map(RequestDrawer::encode).toList()));
        case "query" ->
            // Form style, exploded: an array is the parameter repeated.
            value.forEach(
                v ->
                    query
                        .append(query.isEmpty() ? "?" : "&")
                        .append(encode(name))
                        .append('=')
                        .append(encode(v)));
        case "header" -> headers.put(name, String.join(",", value));
        default -> failures.add(op.key() + ": parameter " + name + " in " + in + " is not drawn");
      }
    }
    return new Drawn(op, path + query, headers, contentType, body, values);
  }

  /**
   * The relations between members that a schema cannot state and the document states in words: a
   * token usage's {@code totalTokens} is at least {@code inputTokens + outputTokens}. (The other
   * one, an upload's path digest naming its bytes, is bound in {@link #draw}.)
   */
  static JsonNode bindRelations(JsonNode value) {
    if (value instanceof ObjectNode o
        && o.path("inputTokens").isIntegralNumber()
        && o.path("outputTokens").isIntegralNumber()
        && o.path("totalTokens").isIntegralNumber()) {
      long sum = o.get("inputTokens").asLong() + o.get("outputTokens").asLong();
      if (o.get("totalTokens").asLong() < sum) {
        o.put("totalTokens", sum);
      }
    }
    value.values().forEach(RequestDrawer::bindRelations);
    return value;
  }

  /** Percent-encoding for a path segment or a query component (a space as %20, never +). */
  static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
