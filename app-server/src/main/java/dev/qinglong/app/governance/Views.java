package dev.qinglong.app.governance;

import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.PluginPackageAction;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import java.time.Instant;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** JSON views of the domain objects (the wire shapes of DESIGN §4). */
final class Views {
  private final ObjectMapper mapper;

  Views(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  ObjectNode proposal(Proposal p) {
    ObjectNode n = mapper.createObjectNode();
    n.put("proposalId", p.proposalId());
    n.put("approvalId", p.approvalId());
    n.put("projectId", p.projectId());
    n.put("actionRef", p.actionRef());
    n.set("action", action(p.action()));
    n.put("actionDigest", p.actionDigest().value());
    n.put("proposedBy", p.proposedBy());
    n.put("state", p.state().wireName());
    n.put("createdAtMs", p.createdAtMs());
    n.put("updatedAtMs", p.updatedAtMs());
    n.put("createdAt", Instant.ofEpochMilli(p.createdAtMs()).toString());
    n.put("updatedAt", Instant.ofEpochMilli(p.updatedAtMs()).toString());
    return n;
  }

  ObjectNode action(PluginPackageAction a) {
    ObjectNode n = mapper.createObjectNode();
    n.put("type", a.type().wireName());
    n.put("package", a.packageName());
    n.put("version", a.version());
    if (a.artifactDigest() == null) {
      n.putNull("artifactDigest");
    } else {
      n.put("artifactDigest", a.artifactDigest().value());
    }
    return n;
  }

  ObjectNode approval(Approval a) {
    ObjectNode n = mapper.createObjectNode();
    n.put("approvalId", a.approvalId());
    n.put("proposalId", a.proposalId());
    n.put("projectId", a.projectId());
    n.put("actionDigest", a.actionDigest().value());
    n.put("proposedBy", a.proposedBy());
    n.put("state", a.state().wireName());
    if (a.decisionId() == null) {
      n.putNull("decisionId");
      n.putNull("decision");
      n.putNull("decidedBy");
      n.putNull("decidedAtMs");
      n.putNull("decidedAt");
    } else {
      n.put("decisionId", a.decisionId());
      n.put("decision", a.decision().wireName());
      n.put("decidedBy", a.decidedBy());
      n.put("decidedAtMs", a.decidedAtMs());
      n.put("decidedAt", Instant.ofEpochMilli(a.decidedAtMs()).toString());
    }
    n.put("createdAtMs", a.createdAtMs());
    n.put("createdAt", Instant.ofEpochMilli(a.createdAtMs()).toString());
    return n;
  }

  ObjectNode member(ProjectMember m) {
    ObjectNode n = mapper.createObjectNode();
    n.put("projectId", m.projectId());
    n.put("userId", m.userId());
    ArrayNode permissions = n.putArray("permissions");
    for (Permission p : m.permissions()) {
      permissions.add(p.wireName());
    }
    return n;
  }

  ObjectNode object() {
    return mapper.createObjectNode();
  }

  String write(Object node) {
    return mapper.writeValueAsString(node);
  }
}
