package dev.qinglong.postgres.backend;

import dev.qinglong.gateway.downloads.DownloadCoordination;
import dev.qinglong.gateway.governor.DownloadRates;
import dev.qinglong.gateway.governor.ServingGate;
import dev.qinglong.gateway.lease.LeaseStatus;
import dev.qinglong.postgres.leases.PostgresDownloadLease;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Shared downloads: one slot's fixed share, gated by its lease (loss is terminal). */
final class SharedLeaseDownloads implements DownloadCoordination {
  private final PostgresDownloadLease lease;

  SharedLeaseDownloads(PostgresDownloadLease lease) {
    this.lease = lease;
  }

  @Override
  public DownloadRates rates() {
    return lease.share();
  }

  @Override
  public boolean serves() {
    return true;
  }

  @Override
  public ServingGate gate() {
    return lease;
  }

  @Override
  public boolean halted() {
    return !lease.mayServe();
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", "shared");
    out.put("serves", true);
    LeaseStatus status = lease.status();
    out.put("slot", status.slot());
    out.put("slots", lease.policy().slots());
    Map<String, Object> share = new LinkedHashMap<>();
    share.put("rateBytesPerSecond", lease.share().bytesPerSecond());
    share.put("perPrincipalBytesPerSecond", lease.share().perPrincipalBytesPerSecond());
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
    return out;
  }

  @Override
  public void close() {
    lease.close();
  }
}
