package dev.qinglong.app.fuzz;

import dev.qinglong.app.support.Http;
import dev.qinglong.app.support.OpenApiResponses;
import dk.brics.automaton.Automaton;
import dk.brics.automaton.BasicAutomata;
import dk.brics.automaton.RegExp;
import dk.brics.automaton.State;
import dk.brics.automaton.Transition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Draws JSON values that are valid under a schema of an OpenAPI 3.1 document (JSON Schema 2020-12):
 * types, {@code const}/{@code enum}, {@code oneOf}/{@code anyOf}, required and optional members,
 * {@code additionalProperties}, lengths, item counts, {@code minimum}/{@code maximum} and {@code
 * pattern}. Strings under a pattern are walks through the pattern's automaton (dk.brics.automaton),
 * cut to the allowed lengths. Every value drawn is checked with the validator of {@link
 * OpenApiResponses} (networknt's); {@link #draw} retries and gives up with an empty answer, never
 * with an invalid value.
 *
 * <p>Hand-written because Maven Central, as reachable here, has no JSON Schema instance generator
 * (the known ones are npm and Python tools); the brics automaton does the only hard part.
 *
 * <p>A string member or parameter takes, most of the time, a value the server answered before under
 * the same name (e.g. a {@code proposalId} from a proposal), when that value is valid where it is
 * used: that is how schema-valid requests reach objects that exist.
 */
final class SchemaSampler {
  private static final JsonNodeFactory NODES = Http.JSON.getNodeFactory();
  private static final int TRIES = 30;

  private final JsonNode doc;
  private final OpenApiResponses document;
  private final Random random;
  private final KnownValues known;
  private final Map<String, Automaton> automata = new HashMap<>();
  private double reuse;

  SchemaSampler(JsonNode doc, Random random, KnownValues known) {
    this.doc = doc;
    this.document = OpenApiResponses.of(doc);
    this.random = random;
    this.known = known;
  }

  /** A value valid under {@code schema}, or empty if none was found in a few tries. */
  Optional<JsonNode> draw(JsonNode schema, String name, double reuse) {
    return draw(schema, name, reuse, v -> v);
  }

  /**
   * The same, each draw passed through {@code bind} before it is checked; {@code reuse} is how
   * often a string takes a value seen before under its name.
   */
  Optional<JsonNode> draw(
      JsonNode schema, String name, double reuse, UnaryOperator<JsonNode> bind) {
    this.reuse = reuse;
    for (int i = 0; i < TRIES; i++) {
      JsonNode value = sample(schema, name, 0);
      value = value == null ? null : bind.apply(value);
      if (value != null && valid(schema, value)) {
        return Optional.of(value);
      }
    }
    return Optional.empty();
  }

  boolean valid(JsonNode schema, JsonNode value) {
    return document.valid(schema, value);
  }

  /** {@code $ref}s to {@code #/…} followed. */
  JsonNode resolve(JsonNode schema) {
    while (schema.path("$ref").isString()) {
      schema = doc.at(schema.path("$ref").asString().substring(1));
    }
    return schema;
  }

  private JsonNode sample(JsonNode schema, String name, int depth) {
    JsonNode s = resolve(schema);
    if (depth > 8 || s.isBoolean()) {
      return s.asBoolean(true) ? NODES.stringNode("x") : null;
    }
    if (s.has("const")) {
      return s.get("const");
    }
    if (s.has("enum")) {
      return pick(s.get("enum"));
    }
    for (String combinator : List.of("oneOf", "anyOf")) {
      if (s.path(combinator).isArray() && !s.path(combinator).isEmpty()) {
        return sample(pick(s.get(combinator)), name, depth + 1);
      }
    }
    if (s.path("allOf").isArray() && !s.path("allOf").isEmpty()) {
      // Every branch drawn, objects merged (a composed schema); the validator judges the whole.
      ObjectNode merged = NODES.objectNode();
      for (JsonNode branch : s.get("allOf")) {
        JsonNode part = sample(branch, name, depth + 1);
        if (!(part instanceof ObjectNode o)) {
          return part;
        }
        merged.setAll(o);
      }
      return merged;
    }
    if (known.isAlways(name) || random.nextDouble() < reuse) {
      Optional<JsonNode> seen = known.pick(name, random).filter(v -> valid(schema, v));
      if (seen.isPresent()) {
        return seen.get();
      }
    }
    return switch (type(s)) {
      case "null" -> NODES.nullNode();
      case "boolean" -> NODES.booleanNode(random.nextBoolean());
      case "integer" -> NODES.numberNode(integer(s));
      case "number" -> NODES.numberNode((double) integer(s));
      case "array" -> array(s, name, depth);
      case "object" -> object(s, depth);
      default -> NODES.stringNode(string(s));
    };
  }

  private String type(JsonNode s) {
    JsonNode type = s.path("type");
    if (type.isArray()) {
      // Mostly the non-null type: null members are easy, the others carry the interest.
      List<String> types = new ArrayList<>();
      type.forEach(t -> types.add(t.asString()));
      if (types.size() > 1 && types.contains("null") && random.nextDouble() < 0.8) {
        types.remove("null");
      }
      return types.get(random.nextInt(types.size()));
    }
    if (type.isString()) {
      return type.asString();
    }
    if (s.has("properties") || s.has("required") || s.has("additionalProperties")) {
      return "object";
    }
    return s.has("items") ? "array" : s.has("minimum") || s.has("maximum") ? "integer" : "string";
  }

  private long integer(JsonNode s) {
    boolean int32 = "int32".equals(s.path("format").asString(""));
    long lo = int32 ? Integer.MIN_VALUE : Long.MIN_VALUE;
    long hi = int32 ? Integer.MAX_VALUE : Long.MAX_VALUE;
    if (s.path("minimum").isNumber()) {
      lo = Math.max(lo, s.get("minimum").asLong());
    }
    if (s.path("exclusiveMinimum").isNumber()) {
      lo = Math.max(lo, s.get("exclusiveMinimum").asLong() + 1);
    }
    if (s.path("maximum").isNumber()) {
      hi = Math.min(hi, s.get("maximum").asLong());
    }
    if (s.path("exclusiveMaximum").isNumber()) {
      hi = Math.min(hi, s.get("exclusiveMaximum").asLong() - 1);
    }
    long value;
    double r = random.nextDouble();
    if (r < 0.35) {
      // The bounds and their neighbours, where off-by-one and overflow live.
      long[] edges = {lo, hi, lo + 1, hi - 1, 0, 1};
      value = edges[random.nextInt(edges.length)];
    } else if (r < 0.7) {
      value = lo + (long) (random.nextDouble() * Math.min(1000.0, (double) hi - lo));
    } else {
      value = lo + (long) (random.nextDouble() * ((double) hi - (double) lo));
    }
    value = Math.min(hi, Math.max(lo, value));
    long step = s.path("multipleOf").asLong(1);
    return step > 1 ? value - Math.floorMod(value, step) : value;
  }

  private JsonNode array(JsonNode s, String name, int depth) {
    int min = s.path("minItems").asInt(0);
    int max = s.path("maxItems").asInt(min + 4);
    int size = min + random.nextInt(Math.min(max, min + 4) - min + 1);
    ArrayNode out = NODES.arrayNode();
    Set<String> seen = new LinkedHashSet<>();
    for (int i = 0; i < size * 3 && out.size() < size; i++) {
      JsonNode item = sample(s.path("items"), name, depth + 1);
      if (item != null && (!s.path("uniqueItems").asBoolean(false) || seen.add(item.toString()))) {
        out.add(item);
      }
    }
    return out;
  }

  private JsonNode object(JsonNode s, int depth) {
    ObjectNode out = NODES.objectNode();
    Set<String> required = new LinkedHashSet<>();
    s.path("required").forEach(r -> required.add(r.asString()));
    for (Map.Entry<String, JsonNode> p : s.path("properties").properties()) {
      if (required.contains(p.getKey()) || random.nextDouble() < 0.6) {
        JsonNode value = sample(p.getValue(), p.getKey(), depth + 1);
        if (value != null) {
          out.set(p.getKey(), value);
        }
      }
    }
    // A member the schema leaves open: unless additionalProperties is false, any other name may
    // come with any value (its schema's, when it gives one).
    JsonNode extra = s.path("additionalProperties");
    if (!(extra.isBoolean() && !extra.asBoolean()) && random.nextDouble() < 0.25) {
      String member = "fuzz" + random.nextInt(1000);
      if (!s.path("properties").has(member)) {
        out.set(
            member, extra.isObject() ? sample(extra, member, depth + 1) : NODES.stringNode(member));
      }
    }
    return out;
  }

  private String string(JsonNode s) {
    switch (s.path("format").asString("")) {
      case "date-time":
        return Instant.ofEpochMilli(random.nextLong(4_102_444_800_000L)).toString();
      case "uri":
        return "urn:fuzz:" + random.nextInt(1_000_000);
      default:
        break;
    }
    int min = s.path("minLength").asInt(0);
    // Unbounded: short strings, or as long as a pattern needs.
    int max = s.path("maxLength").asInt(Math.max(min, s.has("pattern") ? 512 : 24));
    String pattern = s.path("pattern").asString(".*");
    Automaton a =
        automata.computeIfAbsent(
            pattern + "\u0000" + min + "\u0000" + max,
            k -> {
              Automaton lengths = BasicAutomata.makeCharRange(' ', '\ud7ff').repeat(min, max);
              try {
                return new RegExp(bricsSyntax(pattern), RegExp.NONE)
                    .toAutomaton()
                    .intersection(lengths);
              } catch (IllegalArgumentException beyondBrics) {
                // A construct brics lacks (a lookaround, a flag): draw by length, let the
                // validator keep what matches, and report the operation if nothing does.
                return lengths;
              }
            });
    // Mostly short strings; now and then one as long as the automaton allows.
    double stop = random.nextDouble() < 0.15 ? 0 : 0.3;
    StringBuilder out = new StringBuilder();
    State state = a.getInitialState();
    while (true) {
      List<Transition> next = state.getSortedTransitions(false);
      if (next.isEmpty() || (state.isAccept() && random.nextDouble() < stop)) {
        return state.isAccept() ? out.toString() : null;
      }
      Transition t = next.get(random.nextInt(next.size()));
      out.append(character(t.getMin(), t.getMax()));
      state = t.getDest();
    }
  }

  /** A character of {@code [min, max]}, printable ASCII when the range has some, mostly. */
  private char character(char min, char max) {
    char lo = (char) Math.max(min, '!');
    char hi = (char) Math.min(max, '~');
    if (lo <= hi && random.nextDouble() < 0.9) {
      return (char) (lo + random.nextInt(hi - lo + 1));
    }
    return (char) (min + random.nextInt(max - min + 1));
  }

  /**
   * An ECMA/Java pattern in brics syntax: no anchors (a pattern is matched anywhere, so a whole
   * match is a valid value), the class escapes spelt out, brics' own operators quoted.
   */
  static String bricsSyntax(String pattern) {
    String p = pattern;
    if (p.startsWith("^")) {
      p = p.substring(1);
    }
    if (p.endsWith("$") && !p.endsWith("\\$")) {
      p = p.substring(0, p.length() - 1);
    }
    StringBuilder out = new StringBuilder();
    boolean inClass = false;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c == '\\' && i + 1 < p.length()) {
        char e = p.charAt(++i);
        String spelt =
            switch (e) {
              case 'd' -> "0-9";
              case 'w' -> "A-Za-z0-9_";
              case 's' -> " ";
              default -> null;
            };
        out.append(spelt == null ? "\\" + e : inClass ? spelt : "[" + spelt + "]");
        continue;
      }
      if (c == '[') {
        inClass = true;
      } else if (c == ']') {
        inClass = false;
      } else if (!inClass && "\"<>#@&~".indexOf(c) >= 0) {
        out.append('\\');
      }
      out.append(c);
    }
    return out.toString();
  }

  private JsonNode pick(JsonNode array) {
    return array.get(random.nextInt(array.size()));
  }
}
