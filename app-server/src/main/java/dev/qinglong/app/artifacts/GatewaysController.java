package dev.qinglong.app.artifacts;

import dev.qinglong.app.http.ApiExceptionHandler;
import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.http.OpenApiDocument;
import dev.qinglong.app.http.security.AuthProperties;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.PlatformProperties;
import dev.qinglong.app.platform.Role;
import dev.qinglong.backend.OpenedStore;
import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.gateway.lease.StoredLeases;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/downloads/gateways}: the operator's view of the download gateways
 * (docs/downloads.md) for global administrators only: the download mode, the shared policy and
 * every slot's lease as stored in the database (expiry on the database clock), and this process's
 * own download state (its slot, bytes served) and publication worker. Anyone else gets the same
 * 403, whatever exists.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER, Role.READER})
@Tag(name = "artifacts")
public record GatewaysController(
    OpenedStore store,
    AuthProperties auth,
    PlatformProperties platform,
    DownloadsProperties downloadsProperties,
    ObjectProvider<DownloadSide> downloads,
    ObjectProvider<DownloadMetrics> metrics,
    ObjectProvider<PublicationWorker> worker) {

  @Operation(
      operationId = "getDownloadGateways",
      summary = "The download gateways and the publication worker (global administrators only).",
      description =
          "The download mode; the shared policy and every slot's lease as stored, expiry on the"
              + " database clock; this process's own download state and publication worker. On"
              + " SQLite (standalone) there is no stored policy and no slot. Anyone but a global"
              + " administrator gets the same 403.")
  @GetMapping("/v1/downloads/gateways")
  ResponseEntity<GatewaysView> read(Principal caller) {
    if (!auth.effectiveGlobalAdmins().contains(caller.userId())) {
      throw new ForbiddenException(ApiExceptionHandler.GLOBAL_ADMIN_ONLY);
    }
    StoredLeases stored = store.storedLeases().read();
    // A stored shared policy puts the whole database in shared mode (standalone servers refuse it).
    String mode = stored.policy() != null ? "shared" : lower(downloadsProperties.mode());
    PolicyView policy =
        stored.policy() == null
            ? null
            : new PolicyView(
                stored.policy().rateBytesPerSecond(),
                stored.policy().perPrincipalBytesPerSecond(),
                stored.policy().slots(),
                new ShareView(
                    stored.policy().share().bytesPerSecond(),
                    stored.policy().share().perPrincipalBytesPerSecond()));
    List<SlotView> slots =
        stored.slots().stream()
            .map(
                s ->
                    new SlotView(
                        s.slot(),
                        lower(s.state()),
                        s.generation(),
                        time(s.renewedAt()),
                        time(s.expiresAt())))
            .toList();
    PublicationWorker publication = worker.getIfAvailable();
    WorkerView w =
        new WorkerView(
            publication != null, publication == null ? null : lower(publication.state()));
    return JsonAnswers.ok(
        new GatewaysView(
            mode, store.kind(), time(stored.databaseNow()), policy, slots, process(), w));
  }

  /** This process: its role, and its download coordination if it serves downloads at all. */
  private ProcessView process() {
    DownloadSide side = downloads.getIfAvailable();
    DownloadMetrics m = metrics.getIfAvailable();
    Long bytesServed = m == null ? null : m.bytesServed();
    String role = lower(platform.role());
    if (side == null) {
      return new ProcessView(
          role, false, lower(downloadsProperties.mode()), false, null, null, bytesServed);
    }
    Map<String, Object> details = side.details();
    Integer slot = details.get("slot") instanceof Integer i ? i : null;
    Map<?, ?> lease = details.get("lease") instanceof Map<?, ?> l ? l : null;
    return new ProcessView(
        role, true, String.valueOf(details.get("mode")), side.mayServe(), slot, lease, bytesServed);
  }

  private static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  private static String time(Instant t) {
    return t == null ? null : t.toString();
  }

  /** The operator's view of the download gateways; modes are {@link DownloadsProperties.Mode}s. */
  @Schema(name = "DownloadGateways")
  public record GatewaysView(
      @Schema(
              allowableValues = {"standalone", "shared"},
              description =
                  "shared when a shared policy is stored, else this process's"
                      + " qinglong.downloads.mode.")
          String mode,
      @Schema(ref = OpenApiDocument.STORE) String store,
      @Schema(
              types = {"string", "null"},
              format = "date-time",
              description = "The database clock when the leases were read (null on SQLite).")
          String databaseNow,
      @Schema(types = {"object", "null"}) PolicyView policy,
      @Schema(
              description =
                  "Every slot of the stored policy in slot order (free ones included); empty"
                      + " without one.")
          List<SlotView> slots,
      ProcessView process,
      WorkerView worker) {}

  /** The stored shared download policy. */
  @Schema(name = "SharedDownloadPolicy")
  public record PolicyView(
      long rateBytesPerSecond, long perPrincipalBytesPerSecond, int slots, ShareView share) {}

  /** One slot's share of the shared policy. */
  @Schema(name = "DownloadShare", description = "One slot's fixed share.")
  public record ShareView(long rateBytesPerSecond, long perPrincipalBytesPerSecond) {}

  /** One slot's lease as stored (times on the database clock). */
  @Schema(name = "GatewaySlot")
  public record SlotView(
      int slot,
      @Schema(ref = OpenApiDocument.SLOT_STATE, description = "On the database clock.")
          String state,
      @Schema(description = "Owner generation (0 for a free slot).") long generation,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
          String renewedAt,
      @Schema(
              types = {"string", "null"},
              format = "date-time")
          String expiresAt) {}

  /** This process's download state. */
  @Schema(name = "GatewayProcess")
  public record ProcessView(
      @Schema(ref = OpenApiDocument.ROLE) String role,
      @Schema(description = "Whether this process serves downloads (roles all and reader).")
          boolean downloads,
      @Schema(allowableValues = {"standalone", "shared"}) String mode,
      @Schema(description = "Whether payload may flow from this process now.") boolean serves,
      @Schema(types = {"integer", "null"}) Integer slot,
      @Schema(
              types = {"object", "null"},
              description =
                  "This process's own lease (shared mode): state, locallyValid, generation,"
                      + " renewals, failedRenewals, lateAnswers, lossReason.")
          Map<?, ?> lease,
      @Schema(
              types = {"integer", "null"},
              description =
                  "Payload bytes this process served since it started; null without downloads.")
          Long bytesServed) {}

  /** The publication worker, if it runs in this process. */
  @Schema(name = "GatewayWorker")
  public record WorkerView(
      @Schema(
              description =
                  "Whether this process runs a publication worker (roles all and worker).")
          boolean runsHere,
      @Schema(types = {"string", "null"}) String state) {}
}
