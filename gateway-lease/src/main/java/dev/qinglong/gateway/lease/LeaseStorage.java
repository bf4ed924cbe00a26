package dev.qinglong.gateway.lease;

import dev.qinglong.core.kernel.StoreUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * What a {@link SlotLease} needs from the database that coordinates the shared-download slots (ADR
 * 002): a session that holds the download mode barrier in shared mode, the single policy row, and
 * the slot reservations. Every expiry is decided by the <em>database</em> clock; the lease itself
 * decides only its local window.
 *
 * <p>All operations except {@link #close()} run in the current session and are called by one thread
 * at a time; {@link #close()} may be called from any thread, also while an operation hangs. Every
 * failure of the database (unreachable, statement error, broken session) is a {@link
 * StoreUnavailableException}; after one, the caller ends the session with {@link #endSession()} and
 * opens a new one before the next operation.
 */
public interface LeaseStorage extends AutoCloseable {

  /**
   * The current reservation of a slot.
   *
   * @param owner the owner UUID of the process that took it
   * @param generation its fencing generation
   * @param renewedAtMicros when it was last acquired or renewed, on the database clock, in
   *     microseconds; compared only to see whether the holder is still renewing
   */
  record SlotHolder(UUID owner, long generation, long renewedAtMicros) {}

  /**
   * Opens a new session (a dedicated connection, never a pooled one) and takes the download mode
   * barrier in shared mode in it. The barrier lives as long as the session.
   *
   * @return {@code true} if the session is open and holds the shared barrier; {@code false} if a
   *     standalone process holds the barrier exclusively (no session is left open then)
   * @throws StoreUnavailableException if the database cannot be reached or fails, or the storage is
   *     closed; no session is left open
   */
  boolean openSession();

  /**
   * Ends the current session, if any, without waiting for an answer (the reservation stays until it
   * expires in the database). Idempotent; never throws.
   */
  void endSession();

  /**
   * Stores {@code policy} as the single shared-download policy if none is stored yet. A stored
   * policy is never changed.
   *
   * @param creator recorded as the policy's creator
   * @return {@code true} if this call stored it; {@code false} if a policy was already stored (it
   *     is left as it is, whatever its values)
   * @throws StoreUnavailableException if the database fails
   */
  boolean insertPolicyIfAbsent(SharedDownloadPolicy policy, UUID creator);

  /**
   * Reads the stored policy.
   *
   * @return the stored policy, or empty if none is stored yet
   * @throws PolicyMismatchException if the stored row is not a valid policy
   * @throws StoreUnavailableException if the database fails
   */
  Optional<SharedDownloadPolicy> readPolicy();

  /**
   * Takes {@code slot} for {@code owner} if it has never been reserved or its reservation has
   * expired on the database clock; the new reservation lasts {@code lease} on the database clock.
   *
   * @return the generation now held: 1 for a slot never reserved before, otherwise the previous
   *     generation + 1; empty if the slot's reservation is still live (nothing changed)
   * @throws StoreUnavailableException if the database fails; whether the slot was taken is then
   *     unknown (a taken slot is simply left to expire)
   */
  OptionalLong tryAcquire(int slot, UUID owner, Duration lease);

  /**
   * Reads the current reservation of {@code slot}, live or expired.
   *
   * @return the holder, or empty if the slot has never been reserved
   * @throws StoreUnavailableException if the database fails
   */
  Optional<SlotHolder> readHolder(int slot);

  /**
   * Extends the reservation of {@code slot} to {@code lease} from now on the database clock, only
   * if it is held by {@code owner} with {@code generation} and has not expired on the database
   * clock (the fencing check).
   *
   * @return {@code true} if renewed; {@code false} if fenced: the reservation expired, or another
   *     owner or generation holds the slot (nothing changed)
   * @throws StoreUnavailableException if the database fails; whether it renewed is then unknown
   */
  boolean renew(int slot, UUID owner, long generation, Duration lease);

  /**
   * Ends the session for good, also aborting an operation in flight on another thread (which then
   * fails with {@link StoreUnavailableException}). The reservation is not released: it stays until
   * it expires in the database. Later {@link #openSession()} calls fail. Idempotent; never throws.
   */
  @Override
  void close();
}
