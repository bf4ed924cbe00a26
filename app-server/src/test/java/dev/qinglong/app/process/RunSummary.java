package dev.qinglong.app.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** The figures of one crash/soak run, written as {@code <name>.json} and {@code <name>.md}. */
final class RunSummary {
  private RunSummary() {}

  static Map<String, Object> of(
      String name,
      long seconds,
      MixedTraffic traffic,
      Fleet fleet,
      Map<String, Object> faults,
      Invariants invariants,
      long tempFilesLeft) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run", name);
    m.put("trafficSeconds", seconds);
    m.put("requests", traffic.requests());
    m.put("httpAttempts", traffic.attempts.get());
    m.put("replays", traffic.replays.get());
    m.put("requestsByOutcome", traffic.outcomeCounts());
    m.put("downloadsVerified", traffic.downloadsVerified.get());
    m.put("kills", fleet.kills.get());
    m.put("restarts", fleet.restarts.get());
    m.put("faultsInjected", faults);
    m.put("abandonedUploadTempFiles", tempFilesLeft);
    m.put("invariantsChecked", invariants.checks().size());
    m.put("rowsAndIdsChecked", invariants.checkedCount());
    Map<String, Object> checks = new LinkedHashMap<>();
    for (Invariants.Check c : invariants.checks()) {
      checks.put(c.name(), Map.of("checked", c.checked(), "violations", c.violations().size()));
    }
    m.put("invariants", checks);
    List<String> clientViolations = List.copyOf(traffic.violations);
    m.put("clientViolations", clientViolations);
    m.put("violations", invariants.violationCount() + clientViolations.size());
    return m;
  }

  static void write(Path dir, String name, Map<String, Object> m) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve(name + ".json"),
        JsonMapper.builder().build().writerWithDefaultPrettyPrinter().writeValueAsString(m));
    StringBuilder md =
        new StringBuilder("# " + m.get("run") + "\n\n| figure | value |\n|---|---|\n");
    for (String k :
        List.of(
            "trafficSeconds",
            "requests",
            "httpAttempts",
            "replays",
            "downloadsVerified",
            "kills",
            "restarts",
            "faultsInjected",
            "abandonedUploadTempFiles",
            "invariantsChecked",
            "rowsAndIdsChecked",
            "violations")) {
      md.append("| ").append(k).append(" | ").append(m.get(k)).append(" |\n");
    }
    md.append("\n## Requests by outcome\n\n| kind outcome | count |\n|---|---|\n");
    @SuppressWarnings("unchecked")
    Map<String, Long> outcomes = (Map<String, Long>) m.get("requestsByOutcome");
    outcomes.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    md.append("\n## Invariants\n\n| invariant | checked | violations |\n|---|---|---|\n");
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> checks =
        (Map<String, Map<String, Object>>) m.get("invariants");
    checks.forEach(
        (k, v) ->
            md.append("| ")
                .append(k)
                .append(" | ")
                .append(v.get("checked"))
                .append(" | ")
                .append(v.get("violations"))
                .append(" |\n"));
    Files.writeString(dir.resolve(name + ".md"), md.toString());
  }
}
