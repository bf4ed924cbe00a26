package dev.qinglong.app.modelquota;

import dev.qinglong.core.ai.Admission;
import dev.qinglong.core.ai.Completion;
import dev.qinglong.core.ai.InvocationStart;
import dev.qinglong.core.ai.LedgerPage;
import dev.qinglong.core.ai.ModelInvocationPolicy;
import dev.qinglong.core.ai.ProjectQuotaPolicy;
import dev.qinglong.core.ai.Reservation;
import dev.qinglong.core.ai.Settled;
import dev.qinglong.core.ai.Settlement;
import dev.qinglong.core.ai.StepRun;
import dev.qinglong.core.ai.TokenUsage;
import dev.qinglong.core.ai.UsageLedgerEntry;
import dev.qinglong.core.ai.WindowBudget;
import dev.qinglong.core.ai.WindowUsage;
import dev.qinglong.core.ai.WindowUsageReading;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** JSON views of the model quota objects (the wire shapes of DESIGN §5). */
final class AiViews {
  private final ObjectMapper mapper;

  AiViews(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  ObjectNode modelPolicy(ModelInvocationPolicy p) {
    ObjectNode n = mapper.createObjectNode();
    n.put("projectId", p.projectId());
    n.put("modelId", p.modelId());
    n.put("revision", p.revision());
    n.put("maxTotalTokens", p.maxTotalTokens());
    putNullable(n, "maxCostMicros", p.maxCostMicros());
    n.put("createdAtMs", p.createdAtMs());
    return n;
  }

  ObjectNode projectQuota(ProjectQuotaPolicy q) {
    ObjectNode n = mapper.createObjectNode();
    n.put("projectId", q.projectId());
    n.put("revision", q.revision());
    n.put("window", q.window().wireName());
    n.put("maxInvocations", q.maxInvocations());
    n.put("maxTokens", q.maxTokens());
    putNullable(n, "maxCostMicros", q.maxCostMicros());
    n.put("createdAtMs", q.createdAtMs());
    return n;
  }

  ObjectNode stepRun(StepRun s) {
    ObjectNode n = mapper.createObjectNode();
    n.put("projectId", s.projectId());
    n.put("stepRunId", s.stepRunId());
    n.put("runId", s.runId());
    n.put("modelId", s.modelId());
    n.put("state", s.state().wireName());
    if (s.invocationId() == null) {
      n.putNull("invocationId");
    } else {
      n.put("invocationId", s.invocationId());
    }
    n.put("createdAtMs", s.createdAtMs());
    n.put("updatedAtMs", s.updatedAtMs());
    return n;
  }

  ObjectNode admission(Admission a) {
    Reservation r = a.reservation();
    ObjectNode n = mapper.createObjectNode();
    n.put("invocationId", r.invocationId());
    n.put("stepRunId", r.stepRunId());
    n.put("projectId", r.projectId());
    n.set("reservation", reservation(r));
    n.set("start", start(a.start()));
    return n;
  }

  ObjectNode reservation(Reservation r) {
    ObjectNode n = mapper.createObjectNode();
    n.put("type", r.type());
    n.put("projectId", r.projectId());
    n.put("invocationId", r.invocationId());
    n.put("stepRunId", r.stepRunId());
    n.put("runId", r.runId());
    n.put("modelId", r.modelId());
    n.put("modelPolicyRevision", r.modelPolicyRevision());
    n.put("quotaPolicyRevision", r.quotaPolicyRevision());
    n.put("windowStartMs", r.windowStartMs());
    n.put("windowMs", r.windowMs());
    n.set("windowBudget", budget(r.budget()));
    n.put("reservedTokens", r.reservedTokens());
    putNullable(n, "reservedCostMicros", r.reservedCostMicros());
    ObjectNode totals = n.putObject("windowTotals");
    totals.put("seq", r.windowSeq());
    totals.put("invocations", r.windowInvocations());
    totals.put("reservedTokens", r.windowReservedTokens());
    totals.put("reservedCostMicros", r.windowReservedCostMicros());
    n.put("reservedAtMs", r.reservedAtMs());
    n.put("digest", r.digest().value());
    return n;
  }

  private ObjectNode budget(WindowBudget b) {
    ObjectNode n = mapper.createObjectNode();
    putNullable(n, "maxInvocations", b.maxInvocations());
    putNullable(n, "maxTokens", b.maxTokens());
    putNullable(n, "maxCostMicros", b.maxCostMicros());
    return n;
  }

  ObjectNode start(InvocationStart s) {
    ObjectNode n = mapper.createObjectNode();
    n.put("type", s.type());
    n.put("invocationId", s.invocationId());
    n.put("stepRunId", s.stepRunId());
    n.put("reservationDigest", s.reservationDigest().value());
    n.put("startedAtMs", s.startedAtMs());
    n.put("digest", s.digest().value());
    return n;
  }

  ObjectNode settled(Settled s) {
    ObjectNode n = mapper.createObjectNode();
    n.put("invocationId", s.completion().invocationId());
    n.put("stepRunId", s.completion().stepRunId());
    n.put("projectId", s.completion().projectId());
    n.put("outcome", s.completion().outcome().wireName());
    n.set("settlement", settlement(s.settlement()));
    n.set("completion", completion(s.completion()));
    n.set("ledgerEntry", ledgerEntry(s.ledgerEntry()));
    return n;
  }

  ObjectNode settlement(Settlement s) {
    ObjectNode n = mapper.createObjectNode();
    n.put("type", s.type());
    n.put("invocationId", s.invocationId());
    n.put("windowStartMs", s.windowStartMs());
    n.put("windowMs", s.windowMs());
    n.put("settledTokens", s.settledTokens());
    putNullable(n, "settledCostMicros", s.settledCostMicros());
    n.put("releasedTokens", s.releasedTokens());
    n.put("releasedCostMicros", s.releasedCostMicros());
    n.put("reservationDigest", s.reservationDigest().value());
    n.put("completionDigest", s.completionDigest().value());
    ObjectNode totals = n.putObject("windowTotals");
    totals.put("seq", s.windowSettleSeq());
    totals.put("releasedTokens", s.windowReleasedTokens());
    totals.put("releasedCostMicros", s.windowReleasedCostMicros());
    n.put("settledAtMs", s.settledAtMs());
    n.put("digest", s.digest().value());
    return n;
  }

  ObjectNode completion(Completion c) {
    ObjectNode n = mapper.createObjectNode();
    n.put("type", c.type());
    n.put("invocationId", c.invocationId());
    n.put("stepRunId", c.stepRunId());
    n.put("outcome", c.outcome().wireName());
    putUsage(n, c.usage());
    putNullable(n, "costMicros", c.costMicros());
    n.put("completedAtMs", c.completedAtMs());
    n.put("digest", c.digest().value());
    return n;
  }

  ObjectNode ledgerEntry(UsageLedgerEntry e) {
    ObjectNode n = mapper.createObjectNode();
    n.put("type", e.type());
    n.put("ledgerSeq", e.ledgerSeq());
    n.put("invocationId", e.invocationId());
    n.put("stepRunId", e.stepRunId());
    n.put("runId", e.runId());
    n.put("modelId", e.modelId());
    n.put("outcome", e.outcome().wireName());
    putUsage(n, e.usage());
    putNullable(n, "costMicros", e.costMicros());
    n.put("completionDigest", e.completionDigest().value());
    n.put("recordedAtMs", e.recordedAtMs());
    n.put("digest", e.digest().value());
    return n;
  }

  private static void putUsage(ObjectNode parent, TokenUsage u) {
    if (u == null) {
      parent.putNull("usage");
      return;
    }
    ObjectNode n = parent.putObject("usage");
    n.put("inputTokens", u.inputTokens());
    n.put("outputTokens", u.outputTokens());
    n.put("totalTokens", u.totalTokens());
  }

  ObjectNode windowUsage(WindowUsageReading reading) {
    WindowUsage u = reading.usage();
    ProjectQuotaPolicy q = reading.quota();
    ObjectNode n = mapper.createObjectNode();
    n.put("projectId", u.window().projectId());
    n.put("windowStartMs", u.window().windowStartMs());
    n.put("windowMs", u.window().windowMs());
    n.put("invocations", u.invocations());
    n.put("tokens", u.tokens());
    n.put("costMicros", u.costMicros());
    ObjectNode limits = n.putObject("limits");
    if (q == null) {
      limits.putNull("maxInvocations");
      limits.putNull("maxTokens");
      limits.putNull("maxCostMicros");
      n.put("quotaPolicyRevision", 0);
    } else {
      limits.put("maxInvocations", q.maxInvocations());
      limits.put("maxTokens", q.maxTokens());
      putNullable(limits, "maxCostMicros", q.maxCostMicros());
      n.put("quotaPolicyRevision", q.revision());
    }
    n.put("databaseNowMs", reading.databaseNowMs());
    return n;
  }

  ObjectNode ledgerPage(LedgerPage page) {
    ObjectNode n = mapper.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (UsageLedgerEntry e : page.items()) {
      items.add(ledgerEntry(e));
    }
    if (page.nextCursor() == null) {
      n.putNull("nextCursor");
    } else {
      n.put("nextCursor", page.nextCursor());
    }
    return n;
  }

  String write(Object node) {
    return mapper.writeValueAsString(node);
  }

  private static void putNullable(ObjectNode n, String name, Long value) {
    if (value == null) {
      n.putNull(name);
    } else {
      n.put(name, value);
    }
  }
}
