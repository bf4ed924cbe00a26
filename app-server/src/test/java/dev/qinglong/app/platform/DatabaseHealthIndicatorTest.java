package dev.qinglong.app.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.qinglong.backend.BackendParts;
import dev.qinglong.backend.OpenedParts;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.backend.SchemaProbe;
import dev.qinglong.gateway.lease.StoredLeases;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * A database that never answers (a connection wait that does not end) must turn readiness DOWN
 * within the refresh bound, for every pool at once — not keep the last UP while the probes wait one
 * after the other.
 */
class DatabaseHealthIndicatorTest {

  @Test
  void probesThatNeverAnswerAreDownWithinTheRefreshBound() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    AtomicInteger waiting = new AtomicInteger();
    DataSource hung =
        (DataSource)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getConnection")) {
                    waiting.incrementAndGet();
                    never.await();
                  }
                  throw new UnsupportedOperationException(method.getName());
                });
    List<SchemaProbe> probes =
        List.of(
            new SchemaProbe("a", hung, "h", 1),
            new SchemaProbe("b", hung, "h", 1),
            new SchemaProbe("c", hung, "h", 1));
    DatabaseHealthIndicator indicator =
        new DatabaseHealthIndicator(
            backend(probes), new ReadinessCache(new ReadinessProperties(Duration.ofSeconds(1))));
    try {
      Health first = assertTimeoutPreemptively(Duration.ofSeconds(30), indicator::probe);
      assertThat(first.getStatus()).isEqualTo(Status.DOWN);
      for (String name : List.of("a", "b", "c")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> detail = (Map<String, Object>) first.getDetails().get(name);
        assertThat(detail).containsEntry("status", "DOWN").containsEntry("problem", "timed out");
      }
      assertThat(waiting.get()).as("every probe ran, at the same time").isEqualTo(3);
      // The next refresh awaits the probes still hanging instead of starting more of them.
      Health second = assertTimeoutPreemptively(Duration.ofSeconds(30), indicator::probe);
      assertThat(second.getStatus()).isEqualTo(Status.DOWN);
      assertThat(waiting.get()).isEqualTo(3);
    } finally {
      never.countDown();
      indicator.destroy();
    }
  }

  private static OpenedStore backend(List<SchemaProbe> probes) {
    return new OpenedStore(
        "test",
        new BackendParts(true, false, false, false),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        StoredLeases.Reader.NONE,
        probes,
        new OpenedParts());
  }
}
