package dev.qinglong.app.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.testkit.RawHttp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * At least 1,000 generated hostile requests (bodies, headers, content types, query strings,
 * uploads: see {@link HostileCases}) against the JSON routes of an app with every feature on. Each
 * breaks the contract in a definite way, so for each: a 4xx other than 409 (the request is
 * rejected, not accepted and not a conflict with stored state), never a 5xx (no database fault is
 * injected here, so no 503 is legitimate), no stack trace or container page, an {@code
 * application/problem+json} error, none of its unusual input (the case's marker) in the answer, and
 * nothing changed in the database or the artifact store, quota buckets included (except the one
 * quota unit an upload refused while streaming counts: {@link
 * HostileCases.Case#rejectedAfterQuota}).
 *
 * <p>The generator is seeded ({@code -Dqinglong.security.seed=…} replays a run; the seed is in the
 * failure message); {@code -Dqinglong.security.cases=…} changes the count.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileInputTest {
  static final int MIN_CASES = 1_000;

  @TempDir static Path dir;
  SecurityWorld world;

  @BeforeAll
  void start() {
    world = SecurityWorld.start(dir, Map.of()).seed();
  }

  @AfterAll
  void stop() {
    if (world != null) {
      world.close();
    }
  }

  @Test
  void hostileRequestsAreRejectedWithoutLeakReflectionOrStateChange() {
    long seed = Long.getLong("qinglong.security.seed", 20_261_201L);
    int count = Integer.getInteger("qinglong.security.cases", 1_200);
    List<HostileCases.Case> cases = new HostileCases(world, seed).generate(count);
    assertThat(cases).hasSizeGreaterThanOrEqualTo(MIN_CASES);

    // category -> check -> examples
    Map<String, Map<String, List<String>>> failures = new LinkedHashMap<>();
    int failed = 0;
    SecurityWorld.State before = world.state();
    for (HostileCases.Case c : cases) {
      RawHttp.Response r = world.raw.send(c.head(), c.body());
      SecurityWorld.State after = world.state();
      List<String> problems = new ArrayList<>(Answers.shapeProblems(r));
      int status = r.status();
      if (status >= 500) {
        problems.add("5xx answer");
      } else if (status >= 200 && status < 400) {
        problems.add("hostile request accepted (" + status + ")");
      } else if (status == 409) {
        problems.add("409: the request reached the stored state instead of being rejected");
      }
      if (r.all().contains(c.marker())) {
        problems.add("input reflected in the answer");
      }
      boolean bucketsMayCount = c.rejectedAfterQuota();
      if (!before.domain().equals(after.domain())
          || (!bucketsMayCount && !before.buckets().equals(after.buckets()))) {
        problems.add(
            status >= 200 && status < 300
                ? "state changed (accepted request)"
                : "state changed by a rejected request");
      }
      for (String p : problems) {
        List<String> examples =
            failures
                .computeIfAbsent(c.category(), k -> new LinkedHashMap<>())
                .computeIfAbsent(p, k -> new ArrayList<>());
        if (examples.size() < 3) {
          examples.add(c.describe() + "\n        → " + status + " " + abbreviate(r.all()));
        }
        examples.add(null); // counts occurrences
      }
      if (!problems.isEmpty()) {
        failed++;
      }
      before = after;
    }
    StringBuilder report = new StringBuilder();
    report
        .append(failed)
        .append(" of ")
        .append(cases.size())
        .append(" hostile cases failed (seed ")
        .append(seed)
        .append(")\n");
    failures.forEach(
        (category, checks) ->
            checks.forEach(
                (check, examples) -> {
                  long n = examples.stream().filter(e -> e == null).count();
                  report
                      .append("  ")
                      .append(category)
                      .append(": ")
                      .append(check)
                      .append(" ×")
                      .append(n)
                      .append('\n');
                  examples.stream()
                      .filter(e -> e != null)
                      .forEach(e -> report.append("      e.g. ").append(e).append('\n'));
                }));
    assertThat(failed).as(report.toString()).isZero();
  }

  private static String abbreviate(String s) {
    String one = s.replace("\r", "").replace("\n", " ⏎ ");
    return one.length() > 400 ? one.substring(0, 400) + "…" : one;
  }
}
