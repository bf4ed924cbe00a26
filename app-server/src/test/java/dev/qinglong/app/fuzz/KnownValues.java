package dev.qinglong.app.fuzz;

import dev.qinglong.app.support.Http;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The strings the server answered, by member name ({@code proposalId}, {@code digest}, …) in the
 * order first seen, so that later requests can name objects that exist. Names the test fixes (its
 * Projects, the users whose memberships the run may rewrite) are not learned.
 */
final class KnownValues {
  private final Map<String, List<String>> byName = new HashMap<>();
  private final Set<String> fixed = new HashSet<>();

  /** {@code name} takes only {@code values}: nothing is learned for it from answers. */
  void fix(String name, List<String> values) {
    values.forEach(v -> add(name, v));
    fixed.add(name);
  }

  private final Set<String> always = new HashSet<>();

  /**
   * {@code name} takes only {@code values}, and every draw of it takes one of them (never a string
   * drawn from the schema): for members whose good values the schema cannot state, such as a
   * webhook URL that must resolve to a public address.
   */
  void always(String name, List<String> values) {
    fix(name, values);
    always.add(name);
  }

  /** Whether every draw of {@code name} takes a known value ({@link #always}). */
  boolean isAlways(String name) {
    return name != null && always.contains(name);
  }

  void add(String name, String value) {
    if (fixed.contains(name)) {
      return;
    }
    List<String> values = byName.computeIfAbsent(name, k -> new ArrayList<>());
    if (!values.contains(value)) {
      values.add(value);
    }
  }

  /** Every string member of {@code json}, at any depth, under its member name. */
  void learn(JsonNode json) {
    if (json == null) {
      return;
    }
    for (Map.Entry<String, JsonNode> member : json.properties()) {
      if (member.getValue().isString()) {
        add(member.getKey(), member.getValue().asString());
      }
    }
    json.values().forEach(this::learn);
  }

  /** Every string value under a member whose name ends with {@code suffix} (case-insensitive). */
  static Set<String> endingWith(JsonNode json, String suffix, Set<String> into) {
    if (json != null) {
      for (Map.Entry<String, JsonNode> member : json.properties()) {
        if (member.getValue().isString()
            && member.getKey().toLowerCase().endsWith(suffix.toLowerCase())) {
          into.add(member.getValue().asString());
        }
      }
      json.values().forEach(v -> endingWith(v, suffix, into));
    }
    return into;
  }

  /** One of the values seen under {@code name}: the recent ones more often (they are live). */
  Optional<JsonNode> pick(String name, Random random) {
    List<String> values = name == null ? List.of() : byName.getOrDefault(name, List.of());
    if (values.isEmpty()) {
      return Optional.empty();
    }
    int i =
        random.nextBoolean()
            ? values.size() - 1 - random.nextInt(Math.min(5, values.size()))
            : random.nextInt(values.size());
    return Optional.of(Http.JSON.getNodeFactory().stringNode(values.get(i)));
  }

  static Set<String> strings(JsonNode json, String suffix) {
    return endingWith(json, suffix, new LinkedHashSet<>());
  }
}
