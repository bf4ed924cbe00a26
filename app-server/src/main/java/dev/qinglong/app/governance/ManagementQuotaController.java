package dev.qinglong.app.governance;

import dev.qinglong.app.governance.GovernanceJson.ManagementQuotaView;
import dev.qinglong.app.http.JsonAnswers;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.quota.CallerQuota;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/projects/{p}/management-quota}: the caller's own management quota per operation on
 * the database clock. Served where the quota buckets are reachable ({@code all}, {@code writer});
 * reading it consumes none of it.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
@Tag(name = "members")
public record ManagementQuotaController(CallerQuota quota) {
  @Operation(
      operationId = "getManagementQuota",
      summary =
          "The caller's own management quota in the Project, per operation (database clock);"
              + " reading it consumes none.")
  @GetMapping("/v1/projects/{projectId}/management-quota")
  ResponseEntity<ManagementQuotaView> read(@PathVariable String projectId, Principal caller) {
    return JsonAnswers.ok(
        ManagementQuotaView.of(projectId, caller.userId(), quota.read(caller, projectId)));
  }
}
