package dev.qinglong.app.downloads;

import dev.qinglong.app.config.QingLongProperties;
import dev.qinglong.app.config.QingLongProperties.DownloadMode;
import dev.qinglong.app.config.QingLongProperties.Role;
import dev.qinglong.app.config.QingLongProperties.Store;
import dev.qinglong.gateway.governor.DownloadGovernor;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.ServingGate;
import dev.qinglong.gateway.lease.LeaseStatus;
import dev.qinglong.gateway.lease.LeaseTimings;
import dev.qinglong.gateway.lease.SharedDownloadPolicy;
import dev.qinglong.gateway.postgres.DedicatedConnectionFactory;
import dev.qinglong.gateway.postgres.PostgresDownloadLease;
import dev.qinglong.gateway.postgres.PostgresStandaloneDownloadBarrier;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The download side of a process (ADR 002): its governor and what gates it. Roles {@code all} and
 * {@code reader} serve downloads; {@code writer} and {@code worker} do not ({@link #serves()} is
 * false and nothing is taken in the database).
 *
 * <ul>
 *   <li>standalone on SQLite: the governor has the whole configured rate, nothing else;
 *   <li>standalone on PostgreSQL: the mode barrier is taken exclusively first (one standalone
 *       download server per database, never next to shared gateways, refused if a shared policy is
 *       stored);
 *   <li>shared (PostgreSQL only): the slot lease is taken at start (slot 0 stores the policy, a
 *       mismatch or a live slot refuses to start); the governor gets the slot's fixed share and the
 *       lease is its gate. Lease loss halts all payload for good.
 * </ul>
 */
public final class DownloadServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DownloadServer.class);

  private final DownloadMode mode;
  private final DownloadGovernor governor; // null: this role serves no downloads
  private final PostgresDownloadLease lease; // shared mode only
  private final PostgresStandaloneDownloadBarrier barrier; // standalone on PostgreSQL only

  private DownloadServer(
      DownloadMode mode,
      DownloadGovernor governor,
      PostgresDownloadLease lease,
      PostgresStandaloneDownloadBarrier barrier) {
    this.mode = mode;
    this.governor = governor;
    this.lease = lease;
    this.barrier = barrier;
  }

  /** Whether {@code role} serves artifact downloads. */
  public static boolean serves(Role role) {
    return role == Role.ALL || role == Role.READER;
  }

  /**
   * Starts the download side for the configured role and mode.
   *
   * @throws IllegalStateException with an operator-readable message if it may not start
   */
  public static DownloadServer start(QingLongProperties properties, DownloadMetrics metrics) {
    QingLongProperties.Downloads d = properties.getDownloads();
    if (!serves(properties.getRole())) {
      return new DownloadServer(d.getMode(), null, null, null);
    }
    boolean postgres = properties.getStore() == Store.POSTGRES;
    if (d.getMode() == DownloadMode.SHARED) {
      if (!postgres) {
        throw new IllegalStateException(
            "qinglong.downloads.mode=shared needs qinglong.store=postgres (the leases live there)");
      }
      SharedDownloadPolicy policy;
      try {
        policy =
            new SharedDownloadPolicy(
                d.getRateBytesPerSecond(), d.getPerPrincipalBytesPerSecond(), d.getSlots());
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("qinglong.downloads: " + e.getMessage(), e);
      }
      PostgresDownloadLease lease;
      try {
        lease = PostgresDownloadLease.start(connections(properties), policy, d.getSlot(), metrics);
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "shared downloads cannot start on slot "
                + d.getSlot()
                + " of "
                + d.getSlots()
                + ": "
                + e.getMessage(),
            e);
      }
      DownloadGovernor governor = new DownloadGovernor(lease.share(), lease, metrics);
      log.info(
          "downloads.shared slot={} slots={} shareBytesPerSecond={} sharePerPrincipal={}",
          d.getSlot(),
          d.getSlots(),
          lease.share().bytesPerSecond(),
          lease.share().perPrincipalBytesPerSecond());
      return new DownloadServer(DownloadMode.SHARED, governor, lease, null);
    }
    DownloadRates rates =
        new DownloadRates(d.getRateBytesPerSecond(), d.getPerPrincipalBytesPerSecond());
    PostgresStandaloneDownloadBarrier barrier = null;
    if (postgres) {
      try {
        barrier = PostgresStandaloneDownloadBarrier.acquire(connections(properties), false);
      } catch (RuntimeException e) {
        throw new IllegalStateException("standalone downloads cannot start: " + e.getMessage(), e);
      }
    }
    log.info(
        "downloads.standalone rateBytesPerSecond={} perPrincipalBytesPerSecond={} barrier={}",
        rates.bytesPerSecond(),
        rates.perPrincipalBytesPerSecond(),
        barrier != null);
    return new DownloadServer(
        DownloadMode.STANDALONE,
        new DownloadGovernor(rates, ServingGate.ALWAYS_OPEN, metrics),
        null,
        barrier);
  }

  private static DedicatedConnectionFactory connections(QingLongProperties properties) {
    QingLongProperties.Postgres pg = properties.getPostgres();
    QingLongProperties.RoleLogin login = pg.login("reader");
    return PostgresDownloadLease.connections(
        pg.getUrl(), login.getUsername(), login.getPassword(), LeaseTimings.DEFAULTS);
  }

  /** Whether this process serves downloads at all. */
  public boolean serves() {
    return governor != null;
  }

  /** The governor; only if {@link #serves()}. */
  public DownloadGovernor governor() {
    if (governor == null) {
      throw new IllegalStateException("this role serves no downloads");
    }
    return governor;
  }

  /** Whether payload may flow now (false for good after a lease loss). */
  public boolean mayServe() {
    return governor != null && governor.mayServe();
  }

  /** Whether the lease (shared mode) is lost or closed: readiness is DOWN. */
  public boolean halted() {
    return lease != null && !lease.mayServe();
  }

  /** The {@code sharedDownloads} readiness details. */
  public Map<String, Object> details() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", mode.name().toLowerCase(Locale.ROOT));
    out.put("serves", serves());
    if (governor == null) {
      return out;
    }
    Map<String, Object> share = new LinkedHashMap<>();
    share.put("rateBytesPerSecond", governor.rates().bytesPerSecond());
    share.put("perPrincipalBytesPerSecond", governor.rates().perPrincipalBytesPerSecond());
    if (lease != null) {
      LeaseStatus status = lease.status();
      out.put("slot", status.slot());
      out.put("slots", lease.policy().slots());
      out.put("share", share);
      Map<String, Object> l = new LinkedHashMap<>();
      l.put("state", status.state().name().toLowerCase(Locale.ROOT));
      l.put("locallyValid", status.locallyValid());
      l.put("generation", status.generation());
      l.put("renewals", status.renewals());
      l.put("failedRenewals", status.failedRenewals());
      l.put("lateAnswers", status.lateAnswers());
      if (status.lossReason() != null) {
        l.put("lossReason", status.lossReason());
      }
      out.put("lease", l);
    } else {
      out.put("share", share);
      if (barrier != null) {
        out.put("standaloneBarrier", barrier.isHeld() ? "held" : "not-held");
      }
    }
    return out;
  }

  @Override
  public void close() {
    if (lease != null) {
      lease.close();
    }
    if (barrier != null) {
      barrier.close();
    }
  }
}
