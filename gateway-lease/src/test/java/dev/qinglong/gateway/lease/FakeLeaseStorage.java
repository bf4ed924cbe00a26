package dev.qinglong.gateway.lease;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * An in-memory {@link LeaseStorage} whose "database clock" is the monotonic side of a {@link
 * FakeClock}. Tests script it: a standalone process on the barrier, the next operation failing,
 * answers that arrive late ({@link #answerDelay}, applied after the database has acted), and hooks
 * that run before each poll.
 */
final class FakeLeaseStorage implements LeaseStorage {
  /** A slot row; times in database-clock nanoseconds. */
  record Row(UUID owner, long generation, long renewedAt, long expiresAt) {}

  /** One renewal request as the database saw it. */
  record RenewCall(int slot, UUID owner, long generation, boolean renewed) {}

  private final FakeClock clock;
  private final Map<Integer, Row> slots = new HashMap<>();
  final List<RenewCall> renewCalls = new ArrayList<>();

  SharedDownloadPolicy policy;
  UUID policyCreator;
  boolean standaloneHoldsBarrier;
  boolean sessionOpen;
  boolean closed;
  int sessionsOpened;
  int policyReads;

  /** Time between the database acting and its answer arriving, per kind of request. */
  Duration acquireDelay = Duration.ZERO;

  Duration renewDelay = Duration.ZERO;

  /** Thrown by the next operation (once), as a broken connection would. */
  StoreUnavailableException failNext;

  /** Runs while a renewal's answer is on its way (after the database acted, before it arrives). */
  Runnable whileRenewAnswerTravels = () -> {};

  /** Runs before each read of the policy / of the slot holder (other processes acting). */
  Runnable beforePolicyRead = () -> {};

  Runnable beforeHolderRead = () -> {};

  FakeLeaseStorage(FakeClock clock) {
    this.clock = clock;
  }

  long now() {
    return clock.nanoTime();
  }

  /** Puts a reservation of another owner on {@code slot}, expiring {@code in} from now. */
  void reserve(int slot, UUID owner, long generation, Duration in) {
    slots.put(slot, new Row(owner, generation, now(), now() + in.toNanos()));
  }

  /** The reservation's holder renews it now for {@code lease}, as a live process would. */
  void renewAsHolder(int slot, Duration lease) {
    Row r = slots.get(slot);
    slots.put(slot, new Row(r.owner(), r.generation(), now(), now() + lease.toNanos()));
  }

  /** The reservation expires now, and another owner takes the slot (generation + 1). */
  UUID takeOver(int slot, Duration lease) {
    Row r = slots.get(slot);
    UUID other = UUID.randomUUID();
    slots.put(slot, new Row(other, r.generation() + 1, now(), now() + lease.toNanos()));
    return other;
  }

  /** The reservation expires now, nobody takes it. */
  void expire(int slot) {
    Row r = slots.get(slot);
    slots.put(slot, new Row(r.owner(), r.generation(), r.renewedAt(), now()));
  }

  Row row(int slot) {
    return slots.get(slot);
  }

  @Override
  public boolean openSession() {
    if (closed) {
      throw new StoreUnavailableException("closed");
    }
    failIfScripted();
    sessionOpen = false;
    if (standaloneHoldsBarrier) {
      return false;
    }
    sessionsOpened++;
    sessionOpen = true;
    return true;
  }

  @Override
  public void endSession() {
    sessionOpen = false;
  }

  @Override
  public boolean insertPolicyIfAbsent(SharedDownloadPolicy p, UUID creator) {
    inSession();
    if (policy != null) {
      return false;
    }
    policy = p;
    policyCreator = creator;
    return true;
  }

  @Override
  public Optional<SharedDownloadPolicy> readPolicy() {
    beforePolicyRead.run();
    inSession();
    policyReads++;
    return Optional.ofNullable(policy);
  }

  @Override
  public OptionalLong tryAcquire(int slot, UUID owner, Duration lease) {
    inSession();
    Row r = slots.get(slot);
    if (r != null && r.expiresAt() > now()) {
      return OptionalLong.empty();
    }
    long generation = r == null ? 1 : r.generation() + 1;
    slots.put(slot, new Row(owner, generation, now(), now() + lease.toNanos()));
    clock.tick(acquireDelay);
    return OptionalLong.of(generation);
  }

  @Override
  public Optional<SlotHolder> readHolder(int slot) {
    beforeHolderRead.run();
    inSession();
    Row r = slots.get(slot);
    return r == null
        ? Optional.empty()
        : Optional.of(new SlotHolder(r.owner(), r.generation(), r.renewedAt() / 1000));
  }

  @Override
  public boolean renew(int slot, UUID owner, long generation, Duration lease) {
    inSession();
    Row r = slots.get(slot);
    boolean renewed =
        r != null
            && r.owner().equals(owner)
            && r.generation() == generation
            && r.expiresAt() > now();
    if (renewed) {
      slots.put(slot, new Row(owner, generation, now(), now() + lease.toNanos()));
    }
    renewCalls.add(new RenewCall(slot, owner, generation, renewed));
    whileRenewAnswerTravels.run();
    clock.tick(renewDelay);
    return renewed;
  }

  @Override
  public void close() {
    closed = true;
    sessionOpen = false;
  }

  private void inSession() {
    failIfScripted();
    if (!sessionOpen) {
      throw new IllegalStateException("operation without an open session. Indicates a bug.");
    }
  }

  private void failIfScripted() {
    StoreUnavailableException e = failNext;
    if (e != null) {
      failNext = null;
      sessionOpen = false;
      throw e;
    }
  }
}
