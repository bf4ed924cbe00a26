package dev.qinglong.benchmarks;

import dev.qinglong.testkit.postgres.PostgresTestServer;
import java.nio.file.Path;

/**
 * Runs every benchmark in one JVM (exec:java gives each execution its own class loader, and JDBC
 * drivers registered by one are not visible to the next). The argument is the output directory.
 */
public final class AllBenchmarks {
  private AllBenchmarks() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : ".");
    try {
      ManagementQuotaBenchmark.main(new String[] {out.resolve("management-quota.json").toString()});
      ModelQuotaAdmissionBenchmark.main(
          new String[] {out.resolve("model-quota-admission.json").toString()});
    } finally {
      // exec:java closes our class loader before shutdown hooks run: stop PostgreSQL here.
      PostgresTestServer.shutdown();
    }
  }
}
