package dev.qinglong.testkit;

import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Lifecycle shared by the contract suites: one fixture (one migrated database) per test class, one
 * default pool, and unique names so tests in a class never share a bucket or a Project.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class StoreContractSupport {
  protected StoreFixture fixture;
  protected DataSource dataSource;

  /** Creates the adapter's fixture over a fresh, migrated database. Called once per class. */
  protected abstract StoreFixture createFixture();

  @BeforeAll
  final void openFixture() {
    fixture = createFixture();
    dataSource = fixture.newDataSource();
  }

  @AfterAll
  final void closeFixture() {
    if (fixture != null) {
      fixture.close();
    }
  }

  /** A fresh identifier with a readable prefix. */
  protected static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 12);
  }

  /** Stores {@code user} as a member of {@code project} holding exactly these permissions. */
  protected final void addMember(String project, String user, Permission... permissions) {
    fixture
        .policyStore(dataSource)
        .replaceMember(new ProjectMember(project, user, Set.of(permissions)));
  }

  /**
   * Runs each of {@code calls} on a thread of its own, all released at the same moment, and returns
   * their results in the order of {@code calls}. Each is waited for at most 60 s, so that a hung
   * store fails the test instead of blocking the build; a call's exception fails the race.
   */
  protected static <T> List<T> race(List<Callable<T>> calls) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(calls.size());
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> call : calls) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return call.call();
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
