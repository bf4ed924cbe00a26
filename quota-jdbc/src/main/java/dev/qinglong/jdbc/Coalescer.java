package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Groups concurrent calls into batches run by one of the callers (see
 * docs/stores.md#coalescing-postgresql): a leader/follower queue in the manner of a database's
 * group commit.
 *
 * <ul>
 *   <li>A caller that finds fewer than {@code maxInFlight} batches running becomes a leader at
 *       once: it takes whatever is queued (up to {@code maxBatch} requests, its own first) and runs
 *       the batch on its own thread. Uncontended, a call therefore runs alone and immediately: no
 *       timer, no added wait, so single-thread latency does not grow.
 *   <li>Otherwise it queues and waits. When a leader's batch ends, it hands its place to the oldest
 *       queued caller, which leads the next batch with everything queued meanwhile. So at most
 *       {@code maxInFlight} batches (one connection each) run at once, and the more callers wait,
 *       the larger the batches: n queued decisions share one statement and one commit.
 *   <li>A batch that throws fails exactly its own callers with {@link StoreUnavailableException}
 *       (never an answer); the next batch starts afresh. A queued caller interrupted, or waiting
 *       longer than {@code maxWait}, leaves with {@link StoreUnavailableException} (interrupt
 *       status kept); if its request was already taken into a running batch, that batch's answer
 *       for it is dropped. A leader runs its batch with its interrupt status set aside (restored
 *       after), so that an interrupt it arrived with does not fail the others' requests; one that
 *       comes while the batch runs fails the batch like any failure of its statement (503).
 * </ul>
 *
 * <p>Hand-written on purpose: an executor would add a thread hop (and its latency) to every
 * uncontended call and needs threads of its own, and a timer-based batcher (collect for x ms) adds
 * x ms to every call; this queue runs batches on the callers' threads, as large as the contention
 * makes them and no larger, and needs one lock and one condition per waiting caller.
 *
 * @param <Q> a request
 * @param <R> its answer
 */
public final class Coalescer<Q, R> {
  /** Runs one batch. */
  @FunctionalInterface
  public interface Runner<Q, R> {
    /**
     * Decides every request of a batch, in order: one {@link Answer} per request. Throwing fails
     * every request of the batch.
     */
    List<Answer<R>> run(List<Q> requests);
  }

  /** One request's answer: a value or the exception its caller gets. */
  public record Answer<R>(R value, RuntimeException failure) {
    public static <R> Answer<R> of(R value) {
      return new Answer<>(Objects.requireNonNull(value, "value"), null);
    }

    public static <R> Answer<R> failed(RuntimeException failure) {
      return new Answer<>(null, Objects.requireNonNull(failure, "failure"));
    }
  }

  private enum State {
    /** In the queue. */
    QUEUED,
    /** Handed a leader's place: it runs the next batch. */
    LEADING,
    /** Taken into a batch that runs. */
    TAKEN,
    /** Answered. */
    DONE,
    /** Gone (interrupted or timed out): an answer is dropped. */
    ABANDONED
  }

  private static final class Call<Q, R> {
    final Q request;
    final Condition wake;
    State state = State.QUEUED;
    Answer<R> answer;

    Call(Q request, Condition wake) {
      this.request = request;
      this.wake = wake;
    }
  }

  private final String name;
  private final Runner<Q, R> runner;
  private final int maxInFlight;
  private final int maxBatch;
  private final long maxWaitNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Call<Q, R>> queue = new ArrayDeque<>();
  private int inFlight;

  /**
   * @param name what the calls are, for exception messages ({@code "quota decision"})
   * @param maxInFlight batches that may run at once (at most the connections the runner may take)
   * @param maxBatch requests in one batch at most
   * @param maxWait how long a queued caller waits for its answer at most
   */
  public Coalescer(
      String name, Runner<Q, R> runner, int maxInFlight, int maxBatch, Duration maxWait) {
    if (maxInFlight < 1 || maxBatch < 1) {
      throw new IllegalArgumentException("maxInFlight and maxBatch must be at least 1");
    }
    this.name = Objects.requireNonNull(name, "name");
    this.runner = Objects.requireNonNull(runner, "runner");
    this.maxInFlight = maxInFlight;
    this.maxBatch = maxBatch;
    this.maxWaitNanos = maxWait.toNanos();
  }

  /** The answer to {@code request}, decided alone or in a batch with concurrent ones. */
  public R call(Q request) {
    Call<Q, R> call = new Call<>(request, lock.newCondition());
    lock.lock();
    try {
      if (inFlight < maxInFlight) {
        inFlight++;
        call.state = State.LEADING;
      } else {
        queue.addLast(call);
        awaitTurn(call);
        if (call.state == State.DONE) {
          return answer(call);
        }
      }
    } finally {
      lock.unlock();
    }
    lead(call);
    return answer(call);
  }

  /** Calls waiting in the queue now (for tests that build a batch deterministically). */
  public int queued() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Waits (holding the lock) until the call is answered or leads; throws if it gives up. */
  private void awaitTurn(Call<Q, R> call) {
    long deadline = System.nanoTime() + maxWaitNanos;
    while (call.state == State.QUEUED || call.state == State.TAKEN) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        abandon(call);
        throw new StoreUnavailableException(
            name + ": no answer within " + Duration.ofNanos(maxWaitNanos));
      }
      try {
        call.wake.awaitNanos(left);
      } catch (InterruptedException e) {
        if (call.state == State.DONE) {
          Thread.currentThread().interrupt();
          return;
        }
        abandon(call);
        Thread.currentThread().interrupt();
        throw new StoreUnavailableException(name + " interrupted", e);
      }
    }
  }

  /** The call leaves (holding the lock); a leader's place it was handed goes on to the next. */
  private void abandon(Call<Q, R> call) {
    if (call.state == State.QUEUED) {
      queue.remove(call);
    } else if (call.state == State.LEADING) {
      passOn();
    }
    call.state = State.ABANDONED;
  }

  /** Runs a batch led by {@code call}: its own request first, then what is queued. */
  private void lead(Call<Q, R> call) {
    List<Call<Q, R>> batch = new ArrayList<>();
    lock.lock();
    try {
      call.state = State.TAKEN;
      batch.add(call);
      while (batch.size() < maxBatch && !queue.isEmpty()) {
        Call<Q, R> next = queue.pollFirst();
        next.state = State.TAKEN;
        batch.add(next);
      }
    } finally {
      lock.unlock();
    }
    List<Answer<R>> answers = null;
    RuntimeException failure = null;
    Error error = null;
    // A leader that arrives interrupted must not fail the others' requests (a pool's wait for a
    // connection throws on an interrupted thread): the status is kept aside and restored after.
    boolean interrupted = Thread.interrupted();
    try {
      answers = runner.run(batch.stream().map(c -> c.request).toList());
      if (answers == null || answers.size() != batch.size()) {
        throw new IllegalStateException(name + ": a batch answered " + batch.size() + " requests");
      }
    } catch (StoreUnavailableException e) {
      failure = e;
    } catch (RuntimeException e) {
      failure = new StoreUnavailableException(name + " failed", e);
    } catch (Error e) {
      error = e;
      failure = new StoreUnavailableException(name + " failed", e);
    }
    lock.lock();
    try {
      for (int i = 0; i < batch.size(); i++) {
        Call<Q, R> c = batch.get(i);
        if (c.state != State.TAKEN) {
          continue;
        }
        Answer<R> answer = failure != null ? Answer.failed(failure) : answers.get(i);
        c.answer =
            answer != null
                ? answer
                : Answer.failed(new StoreUnavailableException(name + ": no answer in its batch"));
        c.state = State.DONE;
        c.wake.signal();
      }
      passOn();
    } finally {
      lock.unlock();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (error != null) {
      throw error;
    }
  }

  /** A batch ends (holding the lock): the oldest queued call leads next, or a place is free. */
  private void passOn() {
    Call<Q, R> next = queue.pollFirst();
    if (next == null) {
      inFlight--;
    } else {
      next.state = State.LEADING;
      next.wake.signal();
    }
  }

  private R answer(Call<Q, R> call) {
    Answer<R> answer = call.answer;
    if (answer.failure() == null) {
      return answer.value();
    }
    RuntimeException failure = answer.failure();
    if (failure instanceof StoreUnavailableException) {
      // A fresh exception per caller (the batch's is shared), with the batch's as the cause.
      throw new StoreUnavailableException(failure.getMessage(), failure);
    }
    throw failure;
  }
}
