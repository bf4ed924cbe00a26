package dev.qinglong.app.artifacts;

import dev.qinglong.app.http.JsonResponses;
import dev.qinglong.app.http.ProblemType;
import dev.qinglong.app.http.Problems;
import dev.qinglong.app.http.security.AuthProperties;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.PlatformProperties;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.gateway.lease.StoredLeases;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /v1/downloads/gateways}: the operator's view of the download gateways (ADR 002) for
 * global administrators only: the download mode, the shared policy and every slot's lease as stored
 * in the database (expiry on the database clock), and this process's own download state (its slot,
 * bytes served) and completion worker. Anyone else gets the same 403, whatever exists.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER, Role.READER})
public class GatewaysController {
  private final OpenedStore store;
  private final AuthProperties auth;
  private final PlatformProperties platform;
  private final DownloadsProperties downloadsProperties;
  private final ObjectProvider<DownloadSide> downloads;
  private final ObjectProvider<DownloadMetrics> metrics;
  private final ObjectProvider<PublicationWorker> worker;
  private final ObjectMapper mapper;

  public GatewaysController(
      OpenedStore store,
      AuthProperties auth,
      PlatformProperties platform,
      DownloadsProperties downloadsProperties,
      ObjectProvider<DownloadSide> downloads,
      ObjectProvider<DownloadMetrics> metrics,
      ObjectProvider<PublicationWorker> worker,
      ObjectMapper mapper) {
    this.store = store;
    this.auth = auth;
    this.platform = platform;
    this.downloadsProperties = downloadsProperties;
    this.downloads = downloads;
    this.metrics = metrics;
    this.worker = worker;
    this.mapper = mapper;
  }

  @GetMapping("/v1/downloads/gateways")
  ResponseEntity<String> read(Authentication authentication) {
    Principal caller = JsonResponses.caller(authentication);
    if (!auth.effectiveGlobalAdmins().contains(caller.userId())) {
      return Problems.entity(
          ProblemType.FORBIDDEN, "Only a global administrator can read the download gateways.");
    }
    StoredLeases stored = store.storedLeases().read();
    ObjectNode out = mapper.createObjectNode();
    // A stored shared policy puts the whole database in shared mode (standalone servers refuse it).
    String mode =
        stored.policy() != null
            ? "shared"
            : downloadsProperties.mode().name().toLowerCase(Locale.ROOT);
    out.put("mode", mode);
    out.put("store", store.kind());
    putTime(out, "databaseNow", stored.databaseNow());
    if (stored.policy() == null) {
      out.putNull("policy");
    } else {
      ObjectNode p = out.putObject("policy");
      p.put("rateBytesPerSecond", stored.policy().rateBytesPerSecond());
      p.put("perPrincipalBytesPerSecond", stored.policy().perPrincipalBytesPerSecond());
      p.put("slots", stored.policy().slots());
      ObjectNode share = p.putObject("share");
      share.put("rateBytesPerSecond", stored.policy().share().bytesPerSecond());
      share.put("perPrincipalBytesPerSecond", stored.policy().share().perPrincipalBytesPerSecond());
    }
    ArrayNode slots = out.putArray("slots");
    for (StoredLeases.Slot s : stored.slots()) {
      ObjectNode n = slots.addObject();
      n.put("slot", s.slot());
      n.put("state", s.state().name().toLowerCase(Locale.ROOT));
      n.put("generation", s.generation());
      putTime(n, "renewedAt", s.renewedAt());
      putTime(n, "expiresAt", s.expiresAt());
    }
    out.set("process", process());
    ObjectNode w = out.putObject("worker");
    PublicationWorker publication = worker.getIfAvailable();
    w.put("runsHere", publication != null);
    if (publication == null) {
      w.putNull("state");
    } else {
      w.put("state", publication.state().name().toLowerCase(Locale.ROOT));
    }
    return JsonResponses.json(200, mapper.writeValueAsString(out));
  }

  /** This process: its role, and its download coordination if it serves downloads at all. */
  private ObjectNode process() {
    ObjectNode p = mapper.createObjectNode();
    p.put("role", platform.role().name().toLowerCase(Locale.ROOT));
    DownloadSide side = downloads.getIfAvailable();
    DownloadMetrics m = metrics.getIfAvailable();
    p.put("downloads", side != null);
    if (side == null) {
      p.put("mode", downloadsProperties.mode().name().toLowerCase(Locale.ROOT));
      p.put("serves", false);
      p.putNull("slot");
      p.putNull("lease");
    } else {
      Map<String, Object> details = side.details();
      p.put("mode", String.valueOf(details.get("mode")));
      p.put("serves", side.mayServe());
      Object slot = details.get("slot");
      if (slot instanceof Integer i) {
        p.put("slot", i);
      } else {
        p.putNull("slot");
      }
      Object lease = details.get("lease");
      if (lease instanceof Map<?, ?> l) {
        p.set("lease", mapper.valueToTree(l));
      } else {
        p.putNull("lease");
      }
    }
    if (m == null) {
      p.putNull("bytesServed");
    } else {
      p.put("bytesServed", m.bytesServed());
    }
    return p;
  }

  private static void putTime(ObjectNode n, String name, Instant t) {
    if (t == null) {
      n.putNull(name);
    } else {
      n.put(name, t.toString());
    }
  }
}
