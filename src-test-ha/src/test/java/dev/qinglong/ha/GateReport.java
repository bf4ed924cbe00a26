package dev.qinglong.ha;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gate's verdicts, written as {@code ha-gate.json}: {@code {"passed": bool, "gates": [{"name",
 * "passed", "detail"}]}}. A skipped gate also carries {@code "skipped": true}; it is reported as
 * not passed and left out of the overall verdict, which needs every other gate to pass.
 */
final class GateReport {
  record Gate(String name, boolean passed, boolean skipped, String detail) {}

  private final Map<String, Gate> gates = new LinkedHashMap<>();
  private final long startedNanos = System.nanoTime();
  private long durationMs = -1;

  /** Registers the gates in the order the report lists them; each starts as "not run". */
  GateReport(List<String> names) {
    for (String name : names) {
      gates.put(name, new Gate(name, false, false, "not run"));
    }
  }

  synchronized void pass(String name, String detail) {
    put(new Gate(name, true, false, detail));
  }

  synchronized void fail(String name, String detail) {
    put(new Gate(name, false, false, detail));
  }

  synchronized void skip(String name, String detail) {
    put(new Gate(name, false, true, detail));
  }

  private void put(Gate gate) {
    if (!gates.containsKey(gate.name())) {
      throw new IllegalArgumentException("unknown gate " + gate.name() + ". Indicates a bug.");
    }
    gates.put(gate.name(), gate);
  }

  synchronized Gate gate(String name) {
    return gates.get(name);
  }

  synchronized List<Gate> gates() {
    return new ArrayList<>(gates.values());
  }

  /** Gates that were not skipped and did not pass. */
  synchronized List<Gate> failures() {
    return gates.values().stream().filter(g -> !g.skipped() && !g.passed()).toList();
  }

  synchronized boolean passed() {
    boolean anyRun = gates.values().stream().anyMatch(g -> !g.skipped());
    return anyRun && failures().isEmpty();
  }

  synchronized void finish() {
    durationMs = (System.nanoTime() - startedNanos) / 1_000_000;
  }

  synchronized String toJson() {
    StringBuilder json = new StringBuilder();
    json.append("{\n  \"passed\": ").append(passed());
    json.append(",\n  \"durationMs\": ").append(durationMs);
    json.append(",\n  \"gates\": [");
    boolean first = true;
    for (Gate g : gates.values()) {
      json.append(first ? "\n" : ",\n");
      first = false;
      json.append("    {\"name\": ").append(quote(g.name()));
      json.append(", \"passed\": ").append(g.passed());
      if (g.skipped()) {
        json.append(", \"skipped\": true");
      }
      json.append(", \"detail\": ").append(quote(g.detail())).append('}');
    }
    return json.append("\n  ]\n}\n").toString();
  }

  synchronized void write(Path file) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    Files.writeString(file, toJson(), StandardCharsets.UTF_8);
  }

  static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : (s == null ? "" : s).toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
