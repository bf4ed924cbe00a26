package dev.qinglong.app.governance;

import dev.qinglong.app.http.JsonResponses;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.quota.CallerQuota;
import dev.qinglong.core.quota.OperationUsage;
import dev.qinglong.core.quota.QuotaUsage;
import java.time.Instant;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /v1/projects/{p}/management-quota}: the caller's own management quota per operation on
 * the database clock (DESIGN §4). Served where the quota buckets are reachable ({@code all}, {@code
 * writer}); reading it consumes none of it.
 */
@RestController
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ManagementQuotaController {
  private final CallerQuota quota;
  private final ObjectMapper mapper;

  public ManagementQuotaController(CallerQuota quota, ObjectMapper mapper) {
    this.quota = quota;
    this.mapper = mapper;
  }

  @GetMapping("/v1/projects/{projectId}/management-quota")
  ResponseEntity<String> read(@PathVariable String projectId, Authentication authentication) {
    Principal caller = JsonResponses.caller(authentication);
    QuotaUsage usage = quota.read(caller, projectId);
    ObjectNode out = mapper.createObjectNode();
    out.put("projectId", projectId);
    out.put("userId", caller.userId());
    out.put("enabled", usage.enabled());
    out.put("windowMs", usage.windowMs());
    if (usage.databaseNowMs() == null) {
      out.putNull("databaseNowMs");
      out.putNull("databaseNow");
    } else {
      out.put("databaseNowMs", usage.databaseNowMs());
      out.put("databaseNow", Instant.ofEpochMilli(usage.databaseNowMs()).toString());
    }
    ArrayNode operations = out.putArray("operations");
    for (OperationUsage op : usage.operations()) {
      ObjectNode n = operations.addObject();
      n.put("operation", op.operation().wireName());
      n.put("limit", op.limit());
      n.put("used", op.used());
      n.put("remaining", op.remaining());
      putTime(n, "windowStart", op.windowStartedAtMs());
      putTime(n, "resetAt", op.resetAtMs());
      n.put("resetSeconds", op.resetSeconds());
    }
    return JsonResponses.json(200, mapper.writeValueAsString(out));
  }

  private static void putTime(ObjectNode n, String name, Long ms) {
    if (ms == null) {
      n.putNull(name + "Ms");
      n.putNull(name);
    } else {
      n.put(name + "Ms", ms);
      n.put(name, Instant.ofEpochMilli(ms).toString());
    }
  }
}
