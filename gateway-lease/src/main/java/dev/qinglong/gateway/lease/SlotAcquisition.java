package dev.qinglong.gateway.lease;

import dev.qinglong.gateway.lease.LeaseStorage.SlotHolder;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up protocol of a {@link SlotLease}, in the session it keeps afterwards:
 *
 * <ol>
 *   <li>joins the shared download mode (the barrier in shared mode); a standalone process holding
 *       it exclusively → {@link ModeConflictException};
 *   <li>slot 0 stores the policy if there is none; every slot then requires the stored policy to
 *       equal its configuration → otherwise {@link PolicyMismatchException} (a slot other than 0
 *       waits up to {@code staleWait} for slot 0 to store it);
 *   <li>takes the slot if it is free or its reservation has expired on the database clock (the
 *       generation goes up by one). A reservation that is still live is watched for up to {@code
 *       staleWait}: if it is being renewed (its holder is alive) → {@link SlotBusyException} within
 *       about one heartbeat; if it just sits there (a stopped holder) the slot is taken once it
 *       expires; if it does not expire in time → {@link SlotBusyException}.
 * </ol>
 *
 * <p>Waits with {@link LeaseClock#sleep}, polling every {@link LeaseTimings#stalePoll()}.
 */
record SlotAcquisition(
    LeaseStorage storage,
    SharedDownloadPolicy policy,
    int slot,
    UUID owner,
    LeaseTimings timings,
    LeaseClock clock) {
  private static final Logger log = LoggerFactory.getLogger(SlotAcquisition.class);

  /** A taken slot and the start of the request that took it. */
  record Taken(long generation, LeaseWindow.Start start) {}

  void joinSharedMode() {
    if (!storage.openSession()) {
      throw new ModeConflictException(
          "the download mode barrier is held by a standalone process: standalone and shared"
              + " downloads never mix; stop it first");
    }
  }

  void checkPolicy() {
    if (slot == 0 && storage.insertPolicyIfAbsent(policy, owner)) {
      log.info("shared download policy stored by slot 0: {}", policy);
    }
    long deadline = clock.nanoTime() + timings.staleWait().toNanos();
    while (true) {
      Optional<SharedDownloadPolicy> stored = storage.readPolicy();
      if (stored.isPresent()) {
        if (!stored.get().equals(policy)) {
          throw new PolicyMismatchException(
              "the stored shared download policy "
                  + describe(stored.get())
                  + " differs from this process's configuration "
                  + describe(policy)
                  + "; every gateway must use the same values, and the policy changes only"
                  + " offline");
        }
        return;
      }
      if (clock.nanoTime() - deadline >= 0) {
        throw new PolicyMismatchException(
            "no shared download policy is stored: slot 0 did not create it within "
                + timings.staleWait().toSeconds()
                + " s; start slot 0 first");
      }
      pause(timings.stalePoll());
    }
  }

  /** Takes the slot; {@code window} only supplies the start of each attempt. */
  Taken takeSlot(LeaseWindow window) {
    long deadline = clock.nanoTime() + timings.staleWait().toNanos();
    SlotHolder first = null;
    while (true) {
      LeaseWindow.Start start = window.begin();
      OptionalLong acquired = storage.tryAcquire(slot, owner, timings.databaseLease());
      if (acquired.isPresent()) {
        return new Taken(acquired.getAsLong(), start);
      }
      Optional<SlotHolder> holder = storage.readHolder(slot);
      if (holder.isPresent()) {
        if (first == null) {
          first = holder.get();
          log.info(
              "slot {} is reserved by owner {} (generation {}); waiting up to {} s for a stale"
                  + " reservation to expire",
              slot,
              first.owner(),
              first.generation(),
              timings.staleWait().toSeconds());
        } else if (!holder.get().equals(first)) {
          // It moved: its holder is alive and renewing (or someone else took it meanwhile).
          throw new SlotBusyException(
              "slot "
                  + slot
                  + " is held by a live gateway that renews its lease; refusing to start");
        }
      }
      if (clock.nanoTime() - deadline >= 0) {
        throw new SlotBusyException(
            "slot "
                + slot
                + " is still reserved after "
                + timings.staleWait().toSeconds()
                + " s; refusing to start");
      }
      pause(timings.stalePoll());
    }
  }

  private void pause(Duration d) {
    try {
      clock.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SlotBusyException("interrupted while waiting to start the download lease");
    }
  }

  private static String describe(SharedDownloadPolicy p) {
    return "(rate-bytes-per-second="
        + p.rateBytesPerSecond()
        + ", per-principal-bytes-per-second="
        + p.perPrincipalBytesPerSecond()
        + ", slots="
        + p.slots()
        + ")";
  }
}
