package dev.qinglong.benchmarks;

import dev.qinglong.testkit.postgres.LocalPostgresCluster;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The benchmark harness (docs/benchmarks.md): every workload in one run, each on a fresh database,
 * then {@code results.json} and {@code results.md} in the output directory.
 *
 * <p>Arguments (also as one space-separated argument): {@code quick|full} (also {@code --quick}),
 * the output directory, and optionally {@code --only=<text>} to run only the workloads whose
 * "scenario/system" contains the text.
 */
public final class Benchmarks {
  private Benchmarks() {}

  public static void main(String[] args) throws Exception {
    Workload.Mode mode = Workload.Mode.FULL;
    Path out = Path.of("target", "benchmarks");
    String only = null;
    // Maven passes -Dbench.args as one argument: split it.
    for (String arg : String.join(" ", args).trim().split("\\s+")) {
      if (arg.equals("quick") || arg.equals("--quick")) {
        mode = Workload.Mode.QUICK;
      } else if (arg.equals("full") || arg.equals("--full")) {
        mode = Workload.Mode.FULL;
      } else if (arg.startsWith("--only=")) {
        only = arg.substring("--only=".length());
      } else {
        out = Path.of(arg);
      }
    }
    // A cluster the harness starts from the local binaries commits durably (fsync on, as in
    // production and as in the figures of docs/benchmarks.md) and counts statements, unless told
    // otherwise
    // (-Dbench.pg.durable=false on the Maven command). A server from QINGLONG_TEST_PG_URL keeps its
    // own settings.
    if (System.getProperty(LocalPostgresCluster.DURABLE_PROPERTY) == null) {
      System.setProperty(LocalPostgresCluster.DURABLE_PROPERTY, "true");
    }
    List<Workload> workloads = new ArrayList<>();
    workloads.addAll(ManagementQuotaWorkloads.all());
    workloads.addAll(ModelQuotaWorkloads.all());
    workloads.addAll(DownloadWorkloads.all());
    workloads.addAll(WebhookDeliveryWorkloads.all());

    Instant started = Instant.now();
    Map<String, Object> machine = new LinkedHashMap<>();
    List<Result> results = new ArrayList<>();
    try {
      machine.put("processors", Runtime.getRuntime().availableProcessors());
      machine.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
      machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
      machine.put("postgres", FreshDatabase.serverSettings());
      machine.put("postgresSource", PostgresTestServer.get().source());
      machine.put("loadAverageAtStart", loadAverage());
      for (Workload w : workloads) {
        String id = w.scenario() + "/" + w.system();
        if ((only == null || id.contains(only)) && (!mode.quick() || w.inQuickMode())) {
          results.add(Runner.run(w, mode));
        }
      }
      machine.put("loadAverageAtEnd", loadAverage());
    } finally {
      PostgresTestServer.shutdown();
    }
    List<Targets.Target> targets = Targets.evaluate(results);
    Report.write(out, mode, started, machine, results, targets);
    long failed = results.stream().filter(r -> !r.ok()).count();
    if (failed > 0) {
      System.err.println(failed + " workload(s) did not run cleanly; see results.md");
      System.exit(1);
    }
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (Exception e) {
      return "unknown";
    }
  }

  static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }
}
