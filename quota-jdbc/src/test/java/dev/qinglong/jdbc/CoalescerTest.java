package dev.qinglong.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The leader/follower queue alone, with real threads and a runner held on a latch (the database
 * behaviour is proven in {@code PostgresCoalescingIntegrationTest}).
 */
class CoalescerTest {

  /** A runner that records its batches, answers each request with itself, held until released. */
  private static final class HeldRunner implements Coalescer.Runner<String, String> {
    final List<List<String>> batches = new CopyOnWriteArrayList<>();
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger mostRunning = new AtomicInteger();
    volatile CountDownLatch release = new CountDownLatch(0);
    final CountDownLatch started = new CountDownLatch(1);

    @Override
    public List<Coalescer.Answer<String>> run(List<String> requests) {
      mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        batches.add(List.copyOf(requests));
        started.countDown();
        release.await(30, TimeUnit.SECONDS);
        List<Coalescer.Answer<String>> answers = new ArrayList<>();
        for (String r : requests) {
          answers.add(
              r.startsWith("bad")
                  ? Coalescer.Answer.failed(new StoreUnavailableException("bad " + r))
                  : Coalescer.Answer.of("ok " + r));
        }
        return answers;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } finally {
        running.decrementAndGet();
      }
    }
  }

  private static FutureTask<String> start(Coalescer<String, String> coalescer, String request) {
    FutureTask<String> task = new FutureTask<>(() -> coalescer.call(request));
    Thread t = new Thread(task, "caller-" + request);
    t.start();
    return task;
  }

  private static void awaitWaiting(String... names) throws InterruptedException {
    for (String name : names) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (true) {
        Thread t =
            Thread.getAllStackTraces().keySet().stream()
                .filter(x -> x.getName().equals("caller-" + name))
                .findFirst()
                .orElse(null);
        if (t != null && t.getState() == Thread.State.TIMED_WAITING) {
          break;
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError(name + " never queued");
        }
        Thread.sleep(1);
      }
    }
  }

  @Test
  void anUncontendedCallRunsAloneOnItsOwnThread() {
    List<String> threads = new ArrayList<>();
    Coalescer<String, String> coalescer =
        new Coalescer<>(
            "test",
            requests -> {
              threads.add(Thread.currentThread().getName());
              return List.of(Coalescer.Answer.of("ok " + requests.get(0)));
            },
            2,
            64,
            Duration.ofSeconds(30));

    assertThat(coalescer.call("a")).isEqualTo("ok a");
    assertThat(coalescer.call("b")).isEqualTo("ok b");
    assertThat(threads)
        .containsExactly(Thread.currentThread().getName(), Thread.currentThread().getName());
  }

  @Test
  void callersQueuedBehindARunningBatchAreDecidedTogetherByTheNextLeaderWithTheirOwnAnswers()
      throws Exception {
    HeldRunner runner = new HeldRunner();
    runner.release = new CountDownLatch(1);
    Coalescer<String, String> coalescer =
        new Coalescer<>("test", runner, 1, 3, Duration.ofSeconds(30));
    FutureTask<String> first = start(coalescer, "first");
    runner.started.await(30, TimeUnit.SECONDS);
    List<FutureTask<String>> queued = new ArrayList<>();
    for (String r : List.of("q1", "bad-q2", "q3", "q4")) {
      queued.add(start(coalescer, r));
      awaitWaiting(r);
    }
    runner.release.countDown();

    assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("ok first");
    assertThat(queued.get(0).get(30, TimeUnit.SECONDS)).isEqualTo("ok q1");
    assertThatThrownBy(() -> queued.get(1).get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessage("bad bad-q2");
    assertThat(queued.get(2).get(30, TimeUnit.SECONDS)).isEqualTo("ok q3");
    assertThat(queued.get(3).get(30, TimeUnit.SECONDS)).isEqualTo("ok q4");
    // At most 3 in a batch, in arrival order; one batch at a time.
    assertThat(runner.batches)
        .containsExactly(List.of("first"), List.of("q1", "bad-q2", "q3"), List.of("q4"));
    assertThat(runner.mostRunning.get()).isEqualTo(1);
  }

  @Test
  void aBatchThatThrowsFailsEveryOneOfItsCallersAndTheNextBatchRuns() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger batches = new AtomicInteger();
    Coalescer<String, String> coalescer =
        new Coalescer<>(
            "test",
            requests -> {
              int n = batches.incrementAndGet();
              try {
                release.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
              if (n == 2) {
                throw new IllegalStateException("the statement failed");
              }
              return requests.stream().map(r -> Coalescer.Answer.of("ok " + r)).toList();
            },
            1,
            64,
            Duration.ofSeconds(30));
    FutureTask<String> first = start(coalescer, "first");
    while (batches.get() == 0) {
      Thread.sleep(1);
    }
    List<FutureTask<String>> failing = new ArrayList<>();
    for (String r : List.of("f1", "f2", "f3")) {
      failing.add(start(coalescer, r));
      awaitWaiting(r);
    }
    release.countDown();

    assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("ok first");
    for (FutureTask<String> f : failing) {
      assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(StoreUnavailableException.class);
    }
    assertThat(coalescer.call("next")).isEqualTo("ok next");
    assertThat(batches.get()).isEqualTo(3);
  }

  @Test
  void aCallerWaitingLongerThanMaxWaitLeavesWithStoreUnavailableAndTheQueueGoesOn()
      throws Exception {
    HeldRunner runner = new HeldRunner();
    runner.release = new CountDownLatch(1);
    Coalescer<String, String> coalescer =
        new Coalescer<>("test", runner, 1, 64, Duration.ofMillis(200));
    FutureTask<String> first = start(coalescer, "first");
    runner.started.await(30, TimeUnit.SECONDS);

    assertThatThrownBy(() -> coalescer.call("late"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("no answer within");
    runner.release.countDown();
    assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("ok first");
    assertThat(coalescer.call("after")).isEqualTo("ok after");
    // The caller that left was never decided.
    assertThat(runner.batches).containsExactly(List.of("first"), List.of("after"));
  }

  @Test
  void aRequestTheBatchLeftWithoutAnAnswerFailsWithStoreUnavailable() {
    Coalescer<String, String> coalescer =
        new Coalescer<>(
            "test",
            requests -> {
              List<Coalescer.Answer<String>> answers = new ArrayList<>();
              answers.add(null);
              return answers;
            },
            1,
            64,
            Duration.ofSeconds(30));

    assertThatThrownBy(() -> coalescer.call("a"))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("no answer");
    assertThatThrownBy(() -> coalescer.call("b")).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void neverMoreBatchesAtOnceThanMaxInFlight() throws Exception {
    HeldRunner runner = new HeldRunner();
    Coalescer<String, String> coalescer =
        new Coalescer<>("test", runner, 2, 64, Duration.ofSeconds(30));
    runner.release = new CountDownLatch(0);
    List<FutureTask<String>> calls = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    for (int t = 0; t < 16; t++) {
      int thread = t;
      FutureTask<String> task =
          new FutureTask<>(
              () -> {
                go.await();
                StringBuilder last = new StringBuilder();
                for (int i = 0; i < 200; i++) {
                  last.setLength(0);
                  last.append(coalescer.call(thread + "-" + i));
                  assertThat(last.toString()).isEqualTo("ok " + thread + "-" + i);
                }
                return last.toString();
              });
      new Thread(task).start();
      calls.add(task);
    }
    go.countDown();
    for (FutureTask<String> c : calls) {
      c.get(2, TimeUnit.MINUTES);
    }
    assertThat(runner.mostRunning.get()).isLessThanOrEqualTo(2);
    assertThat(runner.batches.stream().mapToInt(List::size).sum()).isEqualTo(16 * 200);
  }
}
