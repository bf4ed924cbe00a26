package dev.qinglong.jdbc;

import dev.qinglong.core.governance.Approval;
import dev.qinglong.core.governance.Proposal;
import dev.qinglong.core.webhooks.WebhookEventType;
import dev.qinglong.core.webhooks.WebhookEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * The transactional outbox: the statement that enqueues an event for every endpoint of the Project
 * subscribed to its type, run on the connection (and so in the transaction) of the change the event
 * reports. One statement, whether or not the Project has endpoints (then it inserts nothing); each
 * row gets its own event id and is due at once. Bodies carry ids and digests of the event's own
 * Project only, never a token.
 */
public final class WebhookOutbox {
  // SQLite reads "SELECT … ON CONFLICT" as a join constraint; there is no ON CONFLICT here.
  private static final String ENQUEUE =
      """
      INSERT INTO webhook_deliveries
        (delivery_id, project_id, webhook_id, event_type, payload, created_at_ms, status, attempts,
         next_attempt_at_ms, claim_token)
      SELECT %1$s, s.project_id, s.webhook_id, s.event_type, ?, k.now_ms, 'pending', 0,
             k.now_ms, 0
      FROM webhook_endpoint_events s, (SELECT %2$s AS now_ms) k
      WHERE s.project_id = ? AND s.event_type = ?
      """;

  private final String enqueue;

  public WebhookOutbox(JdbcDialect dialect) {
    this.enqueue = ENQUEUE.formatted(dialect.newDeliveryId(), dialect.nowMs());
  }

  /**
   * Enqueues {@code payload} as an event of {@code type} for every subscribed endpoint of the
   * Project, on {@code c} (the caller's transaction).
   *
   * @return how many deliveries were enqueued
   */
  public int enqueue(Connection c, String projectId, WebhookEventType type, String payload)
      throws SQLException {
    return JdbcRows.update(
        c,
        enqueue,
        Objects.requireNonNull(payload, "payload"),
        Objects.requireNonNull(projectId, "projectId"),
        type.wireName());
  }

  /** {@code approval.pending}: a proposal was created and waits for decisions. */
  void approvalPending(Connection c, Proposal p, Approval a) throws SQLException {
    enqueue(
        c,
        p.projectId(),
        WebhookEventType.APPROVAL_PENDING,
        WebhookEvents.payload(
            WebhookEventType.APPROVAL_PENDING,
            p.createdAtMs(),
            action(p).put("requiredApprovals", a.requiredApprovals())));
  }

  /** {@code approval.decided}: the approval ended as approved or rejected. */
  void approvalDecided(Connection c, Proposal p, Approval a) throws SQLException {
    enqueue(
        c,
        p.projectId(),
        WebhookEventType.APPROVAL_DECIDED,
        WebhookEvents.payload(
            WebhookEventType.APPROVAL_DECIDED,
            a.decidedAtMs() == null ? p.updatedAtMs() : a.decidedAtMs(),
            action(p)
                .put("state", a.state().wireName())
                .put("decidedBy", a.decidedBy())
                .put("requiredApprovals", a.requiredApprovals())));
  }

  /** {@code proposal.published}: the publication worker published the proposal. */
  void proposalPublished(Connection c, Proposal p, long publishedAtMs) throws SQLException {
    enqueue(
        c,
        p.projectId(),
        WebhookEventType.PROPOSAL_PUBLISHED,
        WebhookEvents.payload(WebhookEventType.PROPOSAL_PUBLISHED, publishedAtMs, action(p)));
  }

  private static WebhookEvents.Data action(Proposal p) {
    return WebhookEvents.data()
        .put("projectId", p.projectId())
        .put("proposalId", p.proposalId())
        .put("approvalId", p.approvalId())
        .put("actionRef", p.actionRef())
        .put("actionType", p.action().type().wireName())
        .put("package", p.action().packageName())
        .put("version", p.action().version())
        .put(
            "artifactDigest",
            p.action().artifactDigest() == null ? null : p.action().artifactDigest().value())
        .put("actionDigest", p.actionDigest().value());
  }
}
