package dev.qinglong.gateway.lease;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The shared-download policy and slot leases as stored in the database, read in one statement on
 * the database clock (the operator's view; nothing here decides whether payload may flow).
 *
 * @param policy the stored shared policy, or {@code null} when none is stored (standalone)
 * @param databaseNow the database clock when the rows were read, or {@code null} without a database
 * @param slots every slot of the policy in slot order (free slots included); empty without a policy
 */
public record StoredLeases(SharedDownloadPolicy policy, Instant databaseNow, List<Slot> slots) {
  /** No database-side download coordination (SQLite). */
  public static final StoredLeases NONE = new StoredLeases(null, null, List.of());

  /** Reads what the database stores now, for operators ({@code GET /v1/downloads/gateways}). */
  @FunctionalInterface
  public interface Reader {
    /** A store without database-side download coordination (SQLite). */
    Reader NONE = () -> StoredLeases.NONE;

    /**
     * @throws dev.qinglong.core.kernel.StoreUnavailableException if the database cannot answer
     */
    StoredLeases read();
  }

  public StoredLeases {
    slots = List.copyOf(Objects.requireNonNull(slots, "slots"));
  }

  /** A slot's reservation on the database clock. */
  public enum State {
    /** A reservation that has not expired. */
    HELD,
    /** A reservation whose expiry has passed: the next acquirer takes it over. */
    EXPIRED,
    /** Never reserved. */
    FREE
  }

  /**
   * One slot.
   *
   * @param generation the owner generation, {@code 0} for a free slot
   * @param expiresAt expiry on the database clock, {@code null} for a free slot
   * @param renewedAt last renewal on the database clock, {@code null} for a free slot
   */
  public record Slot(int slot, State state, long generation, Instant renewedAt, Instant expiresAt) {
    public Slot {
      Objects.requireNonNull(state, "state");
    }
  }
}
