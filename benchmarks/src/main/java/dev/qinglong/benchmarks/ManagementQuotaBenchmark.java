package dev.qinglong.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.qinglong.core.quota.ManagementQuotaStore;
import dev.qinglong.core.quota.QuotaDecision;
import dev.qinglong.core.quota.QuotaKey;
import dev.qinglong.core.quota.QuotaOperation;
import dev.qinglong.core.quota.ReceiptId;
import dev.qinglong.core.quota.RequestDigest;
import dev.qinglong.jdbc.JdbcManagementQuotaStore;
import dev.qinglong.postgres.PostgresDialect;
import dev.qinglong.postgres.PostgresMigrations;
import dev.qinglong.postgres.PostgresRoles;
import dev.qinglong.sqlite.SqliteDatabase;
import dev.qinglong.sqlite.SqliteDialect;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * Measures the ADR 000 management-quota decision on SQLite and PostgreSQL: one admitted request
 * (the single upsert), a replay (upsert that changes nothing + read-back), a rejection of a full
 * bucket (same path), and the throughput of 16 threads over two independent pools, each thread on
 * its own bucket. Prints a table and writes JSON to the path given as the first argument. Timings
 * vary by machine; no test asserts on them.
 */
public final class ManagementQuotaBenchmark {
  private static final Duration WINDOW = Duration.ofSeconds(300);
  private static final int LIMIT = 1000;

  /** Every receipt of the benchmark is spent on this one request. */
  private static final RequestDigest REQUEST =
      RequestDigest.of(QuotaOperation.INSPECT, "benchmark");

  private static final int WARMUP = 200;
  private static final int MEASURED = 900;
  private static final int THREADS = 16;
  private static final int PER_THREAD = 200;

  private record Result(
      String store,
      double admitMedianMs,
      double admitP95Ms,
      double replayMedianMs,
      double rejectMedianMs,
      double concurrentOpsPerSecond) {}

  private ManagementQuotaBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path json = Path.of(args.length > 0 ? args[0] : "management-quota.json");
    List<Result> results = new ArrayList<>();

    Path dir = Files.createTempDirectory("qinglong-bench-mq");
    Path file = dir.resolve("qinglong.db");
    try (HikariDataSource a = SqliteDatabase.open(file);
        HikariDataSource b = SqliteDatabase.open(file)) {
      SqliteDatabase.migrate(a);
      results.add(
          run(
              "sqlite",
              new JdbcManagementQuotaStore(a, SqliteDialect.INSTANCE),
              new JdbcManagementQuotaStore(b, SqliteDialect.INSTANCE)));
    }

    TestDatabase database = PostgresTestServer.get().createDatabase("bench_mq");
    try (HikariDataSource owner = database.newDataSource(2)) {
      PostgresRoles.bootstrap(owner);
      PostgresMigrations.migrate(owner);
      IntFunction<HikariDataSource> pool = size -> managerPool(database, size);
      try (HikariDataSource a = pool.apply(8);
          HikariDataSource b = pool.apply(8)) {
        results.add(
            run(
                "postgres",
                new JdbcManagementQuotaStore(a, PostgresDialect.INSTANCE),
                new JdbcManagementQuotaStore(b, PostgresDialect.INSTANCE)));
      }
    }

    print(results);
    write(json, results);
  }

  private static Result run(String name, ManagementQuotaStore a, ManagementQuotaStore b)
      throws Exception {
    String project = "bench-" + name;
    // Admitted: fresh receipts, a new bucket every LIMIT decisions so none is ever full.
    for (int i = 0; i < WARMUP; i++) {
      a.consume(key(project, "warm", i / LIMIT), new ReceiptId("w" + i), REQUEST, LIMIT, WINDOW);
    }
    double[] admit = new double[MEASURED];
    for (int i = 0; i < MEASURED; i++) {
      QuotaKey key = key(project, "admit", i / LIMIT);
      long t0 = System.nanoTime();
      QuotaDecision d = a.consume(key, new ReceiptId("a" + i), REQUEST, LIMIT, WINDOW);
      admit[i] = (System.nanoTime() - t0) / 1e6;
      expect(d, QuotaDecision.Allowed.class);
    }
    // Replay: the same receipt again.
    QuotaKey replayKey = key(project, "replay", 0);
    a.consume(replayKey, new ReceiptId("r"), REQUEST, LIMIT, WINDOW);
    double[] replay = new double[MEASURED];
    for (int i = 0; i < MEASURED; i++) {
      long t0 = System.nanoTime();
      QuotaDecision d = a.consume(replayKey, new ReceiptId("r"), REQUEST, LIMIT, WINDOW);
      replay[i] = (System.nanoTime() - t0) / 1e6;
      expect(d, QuotaDecision.Replayed.class);
    }
    // Rejected: a full bucket (limit 1).
    QuotaKey fullKey = key(project, "full", 0);
    a.consume(fullKey, new ReceiptId("f"), REQUEST, 1, WINDOW);
    double[] reject = new double[MEASURED];
    for (int i = 0; i < MEASURED; i++) {
      long t0 = System.nanoTime();
      QuotaDecision d = a.consume(fullKey, new ReceiptId("x" + i), REQUEST, 1, WINDOW);
      reject[i] = (System.nanoTime() - t0) / 1e6;
      expect(d, QuotaDecision.Rejected.class);
    }
    // Concurrent: 16 threads, two instances, a bucket per thread.
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> futures = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int t = 0; t < THREADS; t++) {
        ManagementQuotaStore instance = t % 2 == 0 ? a : b;
        QuotaKey key = key(project, "thread" + t, 0);
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < PER_THREAD; i++) {
                    instance.consume(key, new ReceiptId("c" + i), REQUEST, LIMIT, WINDOW);
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      return new Result(
          name,
          percentile(admit, 50),
          percentile(admit, 95),
          percentile(replay, 50),
          percentile(reject, 50),
          THREADS * PER_THREAD / seconds);
    } finally {
      pool.shutdownNow();
    }
  }

  private static QuotaKey key(String project, String user, int bucket) {
    return QuotaKey.user(project, user + "-" + bucket, QuotaOperation.INSPECT);
  }

  private static void expect(QuotaDecision d, Class<? extends QuotaDecision> type) {
    if (!type.isInstance(d)) {
      throw new IllegalStateException("expected " + type.getSimpleName() + ", got " + d);
    }
  }

  private static HikariDataSource managerPool(TestDatabase database, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(database.jdbcUrl());
    config.setUsername(PostgresRoles.PACKAGE_MANAGER);
    config.setSchema(PostgresMigrations.SCHEMA);
    config.setMaximumPoolSize(size);
    return new HikariDataSource(config);
  }

  private static double percentile(double[] values, int p) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, index)];
  }

  private static void print(List<Result> results) {
    System.out.println();
    System.out.println(
        "| store | admit median ms | admit p95 ms | replay median ms | reject median ms |"
            + " 16 threads, 2 pools: decisions/s |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (Result r : results) {
      System.out.println(
          String.format(
              Locale.ROOT,
              "| %s | %.3f | %.3f | %.3f | %.3f | %.0f |",
              r.store(),
              r.admitMedianMs(),
              r.admitP95Ms(),
              r.replayMedianMs(),
              r.rejectMedianMs(),
              r.concurrentOpsPerSecond()));
    }
  }

  private static void write(Path json, List<Result> results) throws IOException {
    StringBuilder out = new StringBuilder("{\"benchmark\":\"management-quota\",\"results\":[");
    for (int i = 0; i < results.size(); i++) {
      Result r = results.get(i);
      out.append(i == 0 ? "" : ",")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"store\":\"%s\",\"admitMedianMs\":%.4f,\"admitP95Ms\":%.4f,"
                      + "\"replayMedianMs\":%.4f,\"rejectMedianMs\":%.4f,"
                      + "\"concurrentDecisionsPerSecond\":%.1f}",
                  r.store(),
                  r.admitMedianMs(),
                  r.admitP95Ms(),
                  r.replayMedianMs(),
                  r.rejectMedianMs(),
                  r.concurrentOpsPerSecond()));
    }
    out.append("]}\n");
    Files.createDirectories(json.toAbsolutePath().getParent());
    Files.writeString(json, out.toString());
    System.out.println("wrote " + json);
  }
}
