package dev.qinglong.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes {@code results.json} and {@code results.md} (the tables docs/benchmarks.md shows). */
final class Report {
  private Report() {}

  static void write(
      Path dir,
      Workload.Mode mode,
      Instant started,
      Map<String, Object> machine,
      List<Result> results,
      List<Targets.Target> targets)
      throws Exception {
    Files.createDirectories(dir);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("mode", Benchmarks.lower(mode));
    json.put("startedAt", started.toString());
    json.put("finishedAt", Instant.now().toString());
    json.put("machine", machine);
    json.put("results", results);
    json.put("targets", targets);
    Files.writeString(
        dir.resolve("results.json"),
        Http.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json));

    StringBuilder md = new StringBuilder();
    md.append("Mode `").append(Benchmarks.lower(mode)).append("`, started ").append(started);
    md.append("\n\n");
    machine.forEach((k, v) -> md.append("* ").append(k).append(": ").append(v).append('\n'));
    md.append("\n| scenario | system | threads | rate | p50 ms | p99 ms | commits/call |")
        .append(" statements/call | db ms/call | app CPU ms/call | machine CPU ms/call |")
        .append(" app log bytes | outcomes |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (Result r : results) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %s | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s |%n",
              r.scenario(),
              r.system(),
              r.threads(),
              r.ok() ? rate(r) : "FAILED: " + oneLine(r.error()),
              r.p50Ms(),
              r.p99Ms(),
              twoDecimals(r.commitsPerCall()),
              twoDecimals(r.statementsPerCall()),
              threeDecimals(r.dbExecMsPerCall()),
              twoDecimals(r.appCpuMsPerCall()),
              twoDecimals(r.machineCpuMsPerCall()),
              r.appLogBytes() == null ? "–" : String.format(Locale.ROOT, "%,d", r.appLogBytes()),
              r.outcomes()));
    }
    md.append("\n### Where the machine's CPU went, ms per call\n\n")
        .append("| scenario | system | machine | app | of which JIT | PostgreSQL | harness |")
        .append(" rest |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (Result r : results) {
      if (!r.ok() || r.machineCpuMsPerCall() == null) {
        continue;
      }
      double app = r.appCpuMsPerCall() == null ? 0 : r.appCpuMsPerCall();
      double pg = r.postgresCpuMsPerCall() == null ? 0 : r.postgresCpuMsPerCall();
      double harness = r.harnessCpuMsPerCall() == null ? 0 : r.harnessCpuMsPerCall();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s | %s |%n",
              r.scenario(),
              r.system(),
              threeDecimals(r.machineCpuMsPerCall()),
              threeDecimals(r.appCpuMsPerCall()),
              threeDecimals(r.appJitMsPerCall()),
              threeDecimals(r.postgresCpuMsPerCall()),
              threeDecimals(r.harnessCpuMsPerCall()),
              threeDecimals(r.machineCpuMsPerCall() - app - pg - harness)));
    }
    md.append("\n### PostgreSQL's side: the statements that took the most server time\n\n")
        .append("Per workload call, from `pg_stat_statements` over the timed phase.\n");
    for (Result r : results) {
      if (r.topStatements().isEmpty()) {
        continue;
      }
      md.append("\n").append(r.scenario()).append(" / ").append(r.system()).append(":\n\n");
      md.append("| exec ms/call | calls/call | mean ms | rows | statement |\n")
          .append("|---:|---:|---:|---:|---|\n");
      for (Map<String, Object> s : r.topStatements()) {
        md.append(
            String.format(
                Locale.ROOT,
                "| %.3f | %.2f | %.3f | %.1f | `%s` |%n",
                s.get("execMsPerCall"),
                s.get("callsPerCall"),
                s.get("meanMs"),
                s.get("rowsPerExecution"),
                String.valueOf(s.get("query")).replace('|', '/').replace('`', '\'')));
      }
    }
    md.append("\n| target | measured | goal | measured / goal | |\n|---|---:|---:|---:|---|\n");
    for (Targets.Target t : targets) {
      md.append(t.row()).append('\n');
    }
    Files.writeString(dir.resolve("results.md"), md);
    System.out.println();
    System.out.println(md);
    System.out.println(
        "wrote " + dir.resolve("results.json") + " and " + dir.resolve("results.md"));
  }

  private static String twoDecimals(Double value) {
    return value == null ? "–" : String.format(Locale.ROOT, "%.2f", value);
  }

  private static String threeDecimals(Double value) {
    return value == null ? "–" : String.format(Locale.ROOT, "%.3f", value);
  }

  private static String oneLine(String error) {
    String line =
        error == null ? "no calls" : error.lines().findFirst().orElse("").replace('|', '/');
    return line.length() > 160 ? line.substring(0, 160) + "…" : line;
  }

  private static String rate(Result r) {
    if (r.unit().equals("bytes")) {
      return String.format(Locale.ROOT, "%.0f MiB/s", r.ratePerSecond() / (1 << 20));
    }
    return String.format(Locale.ROOT, "%,.0f/s", r.ratePerSecond());
  }
}
