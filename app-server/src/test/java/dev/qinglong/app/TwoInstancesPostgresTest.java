package dev.qinglong.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.qinglong.app.support.Http.Response;
import dev.qinglong.app.support.PgApps;
import dev.qinglong.app.support.StoreInspector;
import dev.qinglong.app.support.TestApp;
import dev.qinglong.testkit.postgres.PostgresTestServer;
import dev.qinglong.testkit.postgres.TestDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two independent app instances (separate Spring contexts and pools) on one PostgreSQL database
 * never over-admit: 16 concurrent distinct inspections with limits.inspect=8 give exactly 8 × 200
 * and 8 × 429, and admitted ids replay with 200 on either instance without being counted again.
 */
class TwoInstancesPostgresTest {
  @TempDir Path dirA;
  @TempDir Path dirB;

  @Test
  void sixteenConcurrentInspectionsOverTwoInstancesAdmitExactlyEight() throws Exception {
    TestDatabase db = PostgresTestServer.get().createDatabase("app_two");
    Map<String, String> limits = Map.of("qinglong.management-quota.limits.inspect", "8");
    try (TestApp a = PgApps.start(db, dirA, limits);
        // The second instance is a writer: two "all" processes would both serve standalone
        // downloads, which the mode barrier refuses (one standalone download server per database).
        TestApp b = PgApps.start(db, dirB, withRole(limits, "writer"))) {
      StoreInspector store = PgApps.inspector(db);
      Response proposal =
          a.http.post(
              ApiContract.proposals("demo"),
              a.token("alice"),
              ApiContract.installJson("two-1", "left-pad"));
      assertThat(proposal.status()).isEqualTo(201);
      String proposalId = proposal.json().get("proposalId").asString();
      String path = ApiContract.inspections("demo", proposalId);

      ExecutorService pool = Executors.newFixedThreadPool(16);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Response>> futures = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        TestApp app = i % 2 == 0 ? a : b;
        String body = "{\"inspectionId\":\"two-i-" + i + "\"}";
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  return app.http.post(path, app.token("alice"), body);
                }));
      }
      go.countDown();
      List<Integer> admitted = new ArrayList<>();
      int ok = 0;
      int limited = 0;
      for (int i = 0; i < 16; i++) {
        Response r = futures.get(i).get(60, TimeUnit.SECONDS);
        if (r.status() == 200) {
          ok++;
          admitted.add(i);
        } else {
          assertThat(r.status()).as(r.body()).isEqualTo(429);
          assertThat(r.code()).isEqualTo("quota_exceeded");
          assertThat(Long.parseLong(r.header("Retry-After").orElseThrow())).isBetween(1L, 60L);
          limited++;
        }
      }
      pool.shutdown();
      assertThat(ok).isEqualTo(8);
      assertThat(limited).isEqualTo(8);
      assertThat(store.consumed("demo", "alice", "plugin-package.inspect")).isEqualTo(8);

      // Replays of admitted ids succeed on either instance and are not counted again.
      for (int i : admitted) {
        for (TestApp app : List.of(a, b)) {
          Response replay =
              app.http.post(path, app.token("alice"), "{\"inspectionId\":\"two-i-" + i + "\"}");
          assertThat(replay.status()).as(replay.body()).isEqualTo(200);
        }
      }
      assertThat(store.consumed("demo", "alice", "plugin-package.inspect")).isEqualTo(8);
      Response fresh = b.http.post(path, b.token("alice"), "{\"inspectionId\":\"two-new\"}");
      assertThat(fresh.status()).isEqualTo(429);
    }
  }

  private static Map<String, String> withRole(Map<String, String> props, String role) {
    Map<String, String> all = new java.util.HashMap<>(props);
    all.put("qinglong.role", role);
    return all;
  }
}
