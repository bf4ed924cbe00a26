package dev.qinglong.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The targets of docs/benchmarks.md#targets, as ratios inside one run (the machine is noisy, so
 * absolute rates are not targets, except the model lifecycles' rates, p99 and CPU, and the HTTP
 * refusal rate of the exhausted hot bucket). A target whose workloads did not both run is reported
 * as not measured.
 */
final class Targets {
  private Targets() {}

  /**
   * @param value what was measured (a ratio, a rate or a fraction)
   * @param goal the target
   * @param atLeast whether {@code value} must be at least (true) or at most (false) {@code goal}
   */
  record Target(String name, Double value, double goal, boolean atLeast, String unit) {
    boolean measured() {
      return value != null && !value.isNaN() && !value.isInfinite();
    }

    boolean met() {
      return measured() && (atLeast ? value >= goal : value <= goal);
    }

    /** value / goal: at least 1 meets an "at least" target, at most 1 an "at most" one. */
    Double ofGoal() {
      return measured() ? value / goal : null;
    }

    String row() {
      return String.format(
          Locale.ROOT,
          "| %s | %s | %s %s | %s | %s |",
          name,
          measured() ? format(value) + unit : "not measured",
          atLeast ? "≥" : "≤",
          format(goal) + unit,
          measured() ? String.format(Locale.ROOT, "%.0f %%", 100 * ofGoal()) : "–",
          met() ? "met" : "missed");
    }

    private static String format(double v) {
      return Math.abs(v) >= 100
          ? String.format(Locale.ROOT, "%,.0f", v)
          : String.format(Locale.ROOT, "%.2f", v);
    }
  }

  static List<Target> evaluate(List<Result> results) {
    Lookup r = new Lookup(results);
    List<Target> t = new ArrayList<>();
    ToDoubleFunction<Result> rate = Result::ratePerSecond;
    t.add(
        r.ratio(
            "distinct users: store / raw statement", "distinct-users", "store", "raw-jdbc", 1.0));
    t.add(
        new Target(
            "distinct users: store / better Bucket4j mode",
            div(
                r.get("distinct-users", "store", rate),
                max(
                    r.get("distinct-users", "bucket4j-select-for-update", rate),
                    r.get("distinct-users", "bucket4j-advisory", rate))),
            1.5,
            true,
            "×"));
    t.add(
        r.ratio(
            "exhausted hot bucket: store / raw statement",
            "hot-bucket-exhausted",
            "store",
            "raw-jdbc",
            5));
    t.add(
        r.ratio(
            "exhausted hot bucket: store / Bucket4j advisory",
            "hot-bucket-exhausted",
            "store",
            "bucket4j-advisory",
            3));
    t.add(
        r.ratio(
            "distinct users: HTTP / store (default pool)", "distinct-users", "http", "store", 0.5));
    t.add(
        new Target(
            "distinct users: app CPU per HTTP request",
            r.find("distinct-users", "http").map(Result::appCpuMsPerCall).orElse(null),
            0.25,
            false,
            " ms"));
    t.add(
        r.ratio(
            "exhausted hot bucket: HTTP / store (default pool)",
            "hot-bucket-exhausted",
            "http",
            "store",
            0.5));
    t.add(
        new Target(
            "exhausted hot bucket: refusals over HTTP",
            r.get("hot-bucket-exhausted", "http", rate),
            10_000,
            true,
            "/s"));
    // The model lifecycles over HTTP, one runtime user: rate, p99 and machine CPU per lifecycle.
    for (String[] cell :
        new String[][] {
          {"model-lifecycle-1-project", "http-8-threads", "1 Project, 8 threads", "600"},
          {"model-lifecycle-100-projects", "http-32-threads", "100 Projects, 32 threads", "1000"}
        }) {
      t.add(
          new Target(
              "model lifecycles, HTTP, " + cell[2],
              r.get(cell[0], cell[1], rate),
              Double.parseDouble(cell[3]),
              true,
              "/s"));
      t.add(new Target("… its p99", r.get(cell[0], cell[1], Result::p99Ms), 50, false, " ms"));
      t.add(
          new Target(
              "… machine CPU per lifecycle",
              r.find(cell[0], cell[1]).map(Result::machineCpuMsPerCall).orElse(null),
              2,
              false,
              " ms"));
    }
    t.add(
        new Target(
            "model lifecycles, in-process store, 100 Projects",
            r.get("model-lifecycle-100-projects", "store-32-threads", rate),
            2632,
            true,
            "/s"));
    for (String db : List.of("postgres", "sqlite")) {
      t.add(
          new Target(
              "admission p50 (" + db + "): 100,000 / 10 reservations in the window",
              div(
                  r.get("model-admission-" + db, "store-100000-in-window", Result::p50Ms),
                  r.get("model-admission-" + db, "store-10-in-window", Result::p50Ms)),
              1.2,
              false,
              "×"));
    }
    t.add(
        r.ratio(
            "SQLite: store / raw statement", "distinct-users-sqlite", "store", "raw-jdbc", 0.8));
    t.add(
        r.ratio(
            "downloads: app / plain file-to-socket copy",
            "download",
            "http",
            "plain-file-to-socket",
            0.8));
    t.add(
        new Target(
            "download throttle error: achieved vs configured rate",
            r.find("download", "http-throttled")
                .map(
                    x ->
                        Math.abs(
                                x.ratePerSecond()
                                        / ((Number) x.notes().get("rateLimitBytesPerSecond"))
                                            .doubleValue()
                                    - 1)
                            * 100)
                .orElse(null),
            2,
            false,
            " %"));
    return t;
  }

  private static Double div(Double a, Double b) {
    return a == null || b == null || b == 0 ? null : a / b;
  }

  private static Double max(Double a, Double b) {
    return a == null || b == null ? null : Math.max(a, b);
  }

  private record Lookup(List<Result> results) {
    Optional<Result> find(String scenario, String system) {
      return results.stream()
          .filter(x -> x.ok() && x.scenario().equals(scenario) && x.system().equals(system))
          .findFirst();
    }

    Double get(String scenario, String system, ToDoubleFunction<Result> f) {
      return find(scenario, system).map(f::applyAsDouble).orElse(null);
    }

    /** At least {@code goal}: the rate of {@code num} over that of {@code den} in the scenario. */
    Target ratio(String name, String scenario, String num, String den, double goal) {
      Double rate = get(scenario, num, Result::ratePerSecond);
      return new Target(
          name, div(rate, get(scenario, den, Result::ratePerSecond)), goal, true, "×");
    }
  }
}
