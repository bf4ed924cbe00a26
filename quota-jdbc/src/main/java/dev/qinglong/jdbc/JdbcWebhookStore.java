package dev.qinglong.jdbc;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.webhooks.AttemptResult;
import dev.qinglong.core.webhooks.ClaimedDelivery;
import dev.qinglong.core.webhooks.DeliveryCursor;
import dev.qinglong.core.webhooks.DeliveryStatus;
import dev.qinglong.core.webhooks.PutResult;
import dev.qinglong.core.webhooks.SecretSealer;
import dev.qinglong.core.webhooks.WebhookDelivery;
import dev.qinglong.core.webhooks.WebhookEndpoint;
import dev.qinglong.core.webhooks.WebhookEventType;
import dev.qinglong.core.webhooks.WebhookEvents;
import dev.qinglong.core.webhooks.WebhookStore;
import java.math.BigDecimal;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * {@link WebhookStore} over JDBC (tables of migration V12 on PostgreSQL, V10 on SQLite). Secrets
 * are sealed by the {@link SecretSealer} before they reach a statement and opened only for the
 * delivery worker's claims, so the database holds ciphertext alone. Times are the database clock.
 *
 * <p>On PostgreSQL the registration methods run as {@code ql3_admin} and the delivery methods
 * ({@link #claimDue}, {@link #recordAttempt}, {@link #oldestDueCreatedAtMs}) as {@code
 * ql3_package_executor}: each login is granted only its half, so the backend opens one instance per
 * login.
 */
public final class JdbcWebhookStore implements WebhookStore {
  /** How long a rotated-out secret stays valid. */
  public static final long PREVIOUS_SECRET_VALIDITY_MS = 24L * 60 * 60 * 1000;

  private static final String ENDPOINT_COLUMNS =
      "project_id, webhook_id, url, model_quota_thresholds, created_at_ms, updated_at_ms";

  private static final String LOCK_PROJECT_INSERT =
      """
      INSERT INTO webhook_projects (project_id, locked_at_ms) VALUES (?, ?)
      ON CONFLICT (project_id) DO NOTHING
      """;

  // Serialises registrations of one Project (the row lock is held until commit), so the count
  // below is exact under concurrent puts on PostgreSQL; SQLite's write lock is held anyway.
  private static final String LOCK_PROJECT =
      "UPDATE webhook_projects SET locked_at_ms = ? WHERE project_id = ?";

  private static final String COUNT_ENDPOINTS =
      "SELECT count(*) FROM webhook_endpoints WHERE project_id = ?";

  private static final String INSERT_ENDPOINT =
      """
      INSERT INTO webhook_endpoints
        (project_id, webhook_id, url, model_quota_thresholds, secret_sealed, created_at_ms,
         updated_at_ms)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      """;

  private static final String UPDATE_ENDPOINT =
      """
      UPDATE webhook_endpoints SET url = ?, model_quota_thresholds = ?, updated_at_ms = ?
      WHERE project_id = ? AND webhook_id = ?
      """;

  private static final String DELETE_EVENTS =
      "DELETE FROM webhook_endpoint_events WHERE project_id = ? AND webhook_id = ?";

  private static final String INSERT_EVENT =
      "INSERT INTO webhook_endpoint_events (project_id, webhook_id, event_type) VALUES (?, ?, ?)";

  private static final String FIND_ENDPOINT =
      "SELECT "
          + ENDPOINT_COLUMNS
          + " FROM webhook_endpoints WHERE project_id = ? AND webhook_id = ?";

  private static final String LIST_ENDPOINTS =
      "SELECT "
          + ENDPOINT_COLUMNS
          + " FROM webhook_endpoints WHERE project_id = ? ORDER BY webhook_id";

  private static final String EVENTS_OF_ENDPOINT =
      "SELECT webhook_id, event_type FROM webhook_endpoint_events"
          + " WHERE project_id = ? AND webhook_id = ?";

  private static final String EVENTS_OF_PROJECT =
      "SELECT webhook_id, event_type FROM webhook_endpoint_events WHERE project_id = ?";

  // Cascades to the endpoint's event types and delivery rows (foreign keys, owner's rights).
  private static final String DELETE_ENDPOINT =
      "DELETE FROM webhook_endpoints WHERE project_id = ? AND webhook_id = ?";

  private static final String ROTATE =
      """
      UPDATE webhook_endpoints
      SET previous_secret_sealed = secret_sealed, previous_secret_until_ms = %1$s + %2$d,
          secret_sealed = ?, updated_at_ms = %1$s
      WHERE project_id = ? AND webhook_id = ?
      """;

  private static final String INSERT_TEST =
      """
      INSERT INTO webhook_deliveries
        (delivery_id, project_id, webhook_id, event_type, payload, created_at_ms, status, attempts,
         next_attempt_at_ms, claim_token)
      VALUES (?, ?, ?, 'webhook.test', ?, ?, 'pending', 0, ?, 0)
      """;

  private static final String DELIVERY_COLUMNS =
      "delivery_id, project_id, webhook_id, event_type, created_at_ms, attempts, status,"
          + " last_status_code, last_error, next_attempt_at_ms, delivered_at_ms";

  // Newest first, a keyset page strictly before the cursor ("? IS NULL": the first page).
  private static final String DELIVERY_PAGE =
      "SELECT "
          + DELIVERY_COLUMNS
          + """
           FROM webhook_deliveries
          WHERE project_id = ? AND webhook_id = ?
            AND (CAST(? AS bigint) IS NULL OR (created_at_ms, delivery_id) < (?, ?))
          ORDER BY created_at_ms DESC, delivery_id DESC
          LIMIT ?
          """;

  // The lease: the rows stay pending, due again at now + lease unless an attempt is recorded; the
  // new claim token fences the attempt of any earlier claim. The outer conditions are evaluated
  // again on a row another transaction changed meanwhile (PostgreSQL), so a row is claimed once.
  private static final String CLAIM =
      """
      UPDATE webhook_deliveries
      SET claim_token = claim_token + 1, next_attempt_at_ms = ?
      WHERE delivery_id IN (SELECT delivery_id FROM webhook_deliveries
                            WHERE status = 'pending' AND next_attempt_at_ms <= ?
                            ORDER BY next_attempt_at_ms, delivery_id
                            LIMIT ?)
        AND status = 'pending' AND next_attempt_at_ms <= ?
      RETURNING delivery_id, claim_token
      """;

  private static final String CLAIMED =
      """
      SELECT d.delivery_id, d.project_id, d.webhook_id, d.event_type, d.payload, d.created_at_ms,
             d.attempts, e.url, e.secret_sealed, e.previous_secret_sealed,
             e.previous_secret_until_ms
      FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.project_id = d.project_id AND e.webhook_id = d.webhook_id
      WHERE d.delivery_id IN (%s)
      """;

  private static final String RECORD_DELIVERED =
      """
      UPDATE webhook_deliveries
      SET status = 'delivered', attempts = attempts + 1, last_status_code = ?, last_error = NULL,
          last_attempt_at_ms = %1$s, delivered_at_ms = %1$s, next_attempt_at_ms = NULL
      WHERE delivery_id = ? AND claim_token = ? AND status = 'pending'
      """;

  private static final String RECORD_RETRY =
      """
      UPDATE webhook_deliveries
      SET attempts = attempts + 1, last_status_code = ?, last_error = ?,
          last_attempt_at_ms = %1$s, next_attempt_at_ms = ?
      WHERE delivery_id = ? AND claim_token = ? AND status = 'pending'
      """;

  private static final String RECORD_FAILED =
      """
      UPDATE webhook_deliveries
      SET status = 'failed', attempts = attempts + 1, last_status_code = ?, last_error = ?,
          last_attempt_at_ms = %1$s, next_attempt_at_ms = NULL
      WHERE delivery_id = ? AND claim_token = ? AND status = 'pending'
      """;

  private static final String OLDEST_DUE =
      """
      SELECT min(created_at_ms) FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at_ms <= %s
      """;

  private final JdbcTransactions jdbc;
  private final JdbcDialect dialect;
  private final SecretSealer sealer;
  private final String rotate;
  private final String recordDelivered;
  private final String recordRetry;
  private final String recordFailed;
  private final String oldestDue;

  public JdbcWebhookStore(DataSource dataSource, JdbcDialect dialect, SecretSealer sealer) {
    this.jdbc = new JdbcTransactions(dataSource, dialect);
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.sealer = Objects.requireNonNull(sealer, "sealer");
    this.rotate = ROTATE.formatted(dialect.nowMs(), PREVIOUS_SECRET_VALIDITY_MS);
    this.recordDelivered = RECORD_DELIVERED.formatted(dialect.nowMs());
    this.recordRetry = RECORD_RETRY.formatted(dialect.nowMs());
    this.recordFailed = RECORD_FAILED.formatted(dialect.nowMs());
    this.oldestDue = OLDEST_DUE.formatted(dialect.nowMs());
  }

  // --- registration ---

  /**
   * One transaction: lock the Project's registration row, then replace the endpoint or, if the
   * Project has fewer than {@value #MAX_ENDPOINTS_PER_PROJECT}, insert it with the sealed secret.
   * Two concurrent creations of one id: the primary key refuses the second and the transaction is
   * tried again, then replacing.
   */
  @Override
  public PutResult put(
      String projectId,
      String webhookId,
      URI url,
      Set<WebhookEventType> events,
      List<BigDecimal> thresholds,
      byte[] newSecretIfCreated) {
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(webhookId, "webhookId");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(newSecretIfCreated, "newSecretIfCreated");
    String thresholdText = thresholdText(thresholds);
    return jdbc.retryingTransaction(
        "webhook put",
        c -> {
          long now = jdbc.nowMs(c);
          JdbcRows.update(c, LOCK_PROJECT_INSERT, projectId, now);
          JdbcRows.update(c, LOCK_PROJECT, now, projectId);
          boolean exists = findEndpoint(c, projectId, webhookId).isPresent();
          if (exists) {
            JdbcRows.update(
                c, UPDATE_ENDPOINT, url.toString(), thresholdText, now, projectId, webhookId);
            JdbcRows.update(c, DELETE_EVENTS, projectId, webhookId);
          } else {
            long count =
                JdbcRows.one(c, COUNT_ENDPOINTS, "endpoint count", rs -> rs.getLong(1), projectId);
            if (count >= MAX_ENDPOINTS_PER_PROJECT) {
              throw new ValidationException(
                  "webhookId",
                  "a Project has at most " + MAX_ENDPOINTS_PER_PROJECT + " webhook endpoints");
            }
            try (PreparedStatement ps = c.prepareStatement(INSERT_ENDPOINT)) {
              ps.setString(1, projectId);
              ps.setString(2, webhookId);
              ps.setString(3, url.toString());
              ps.setString(4, thresholdText);
              ps.setBytes(5, sealer.seal(newSecretIfCreated));
              ps.setLong(6, now);
              ps.setLong(7, now);
              ps.executeUpdate();
            }
          }
          try (PreparedStatement ps = c.prepareStatement(INSERT_EVENT)) {
            for (WebhookEventType type : sorted(events)) {
              ps.setString(1, projectId);
              ps.setString(2, webhookId);
              ps.setString(3, type.wireName());
              ps.addBatch();
            }
            ps.executeBatch();
          }
          WebhookEndpoint stored =
              findEndpoint(c, projectId, webhookId)
                  .orElseThrow(() -> new StoreUnavailableException("webhook vanished"));
          return new PutResult(stored, !exists);
        });
  }

  @Override
  public List<WebhookEndpoint> list(String projectId) {
    Objects.requireNonNull(projectId, "projectId");
    return jdbc.autoCommit(
        "webhook list",
        c -> {
          Map<String, Set<WebhookEventType>> events = new LinkedHashMap<>();
          for (String[] row :
              JdbcRows.all(
                  c,
                  EVENTS_OF_PROJECT,
                  "webhook event",
                  rs -> new String[] {rs.getString(1), rs.getString(2)},
                  projectId)) {
            events
                .computeIfAbsent(row[0], k -> EnumSet.noneOf(WebhookEventType.class))
                .add(WebhookEventType.fromWire(row[1]));
          }
          return JdbcRows.all(
              c,
              LIST_ENDPOINTS,
              "webhook",
              rs -> endpoint(rs, events.getOrDefault(rs.getString(2), Set.of())),
              projectId);
        });
  }

  @Override
  public Optional<WebhookEndpoint> find(String projectId, String webhookId) {
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(webhookId, "webhookId");
    return jdbc.autoCommit("webhook read", c -> findEndpoint(c, projectId, webhookId));
  }

  @Override
  public boolean delete(String projectId, String webhookId) {
    return jdbc.inTransaction(
            "webhook delete",
            c ->
                JdbcRows.update(
                    c,
                    DELETE_ENDPOINT,
                    Objects.requireNonNull(projectId, "projectId"),
                    Objects.requireNonNull(webhookId, "webhookId")))
        == 1;
  }

  @Override
  public boolean rotateSecret(String projectId, String webhookId, byte[] newSecret) {
    Objects.requireNonNull(newSecret, "newSecret");
    byte[] sealed = sealer.seal(newSecret);
    return jdbc.statement(
            "webhook secret rotation",
            rotate,
            ps -> {
              ps.setBytes(1, sealed);
              ps.setString(2, Objects.requireNonNull(projectId, "projectId"));
              ps.setString(3, Objects.requireNonNull(webhookId, "webhookId"));
              return ps.executeUpdate();
            })
        == 1;
  }

  @Override
  public Optional<String> enqueueTest(String projectId, String webhookId) {
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(webhookId, "webhookId");
    return jdbc.inTransaction(
        "webhook test enqueue",
        c -> {
          if (findEndpoint(c, projectId, webhookId).isEmpty()) {
            return Optional.empty();
          }
          long now = jdbc.nowMs(c);
          String id = WebhookEvents.newDeliveryId();
          String payload =
              WebhookEvents.payload(
                  WebhookEventType.WEBHOOK_TEST,
                  now,
                  WebhookEvents.data().put("projectId", projectId).put("webhookId", webhookId));
          JdbcRows.update(c, INSERT_TEST, id, projectId, webhookId, payload, now, now);
          return Optional.of(id);
        });
  }

  @Override
  public List<WebhookDelivery> deliveries(
      String projectId, String webhookId, DeliveryCursor after, int limit) {
    JdbcRows.requireLimit(limit);
    return jdbc.statement(
        "webhook delivery log",
        DELIVERY_PAGE,
        ps -> {
          ps.setString(1, Objects.requireNonNull(projectId, "projectId"));
          ps.setString(2, Objects.requireNonNull(webhookId, "webhookId"));
          JdbcRows.setNullableLong(ps, 3, after == null ? null : after.createdAtMs());
          JdbcRows.setNullableLong(ps, 4, after == null ? null : after.createdAtMs());
          ps.setString(5, after == null ? null : after.deliveryId());
          ps.setInt(6, limit);
          return JdbcRows.all(ps, "webhook delivery", JdbcWebhookStore::delivery);
        });
  }

  // --- delivery ---

  /**
   * One transaction: lease up to {@code max} due rows (one statement), then read them with their
   * endpoints. The secrets are opened after the commit: a row whose secret does not open (sealed
   * under another key than the one configured) is left out and comes back when its lease ends,
   * never signed with a wrong key; if no row opened, the call fails with that error, so the worker
   * reports it. A previous secret that does not open is simply not offered.
   */
  @Override
  public List<ClaimedDelivery> claimDue(long leaseMs, int max) {
    if (leaseMs < 1) {
      throw new IllegalArgumentException("leaseMs must be >= 1, was " + leaseMs);
    }
    JdbcRows.requireLimit(max);
    record Row(
        String deliveryId,
        String projectId,
        String webhookId,
        WebhookEventType type,
        String payload,
        long createdAtMs,
        int attempts,
        String url,
        byte[] secret,
        byte[] previous,
        Long previousUntilMs,
        long nowMs,
        long claimToken) {}
    List<Row> rows =
        jdbc.inTransaction(
            "webhook claim",
            c -> {
              long now = jdbc.nowMs(c);
              Map<String, Long> tokens = new LinkedHashMap<>();
              try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
                ps.setLong(1, now + leaseMs);
                ps.setLong(2, now);
                ps.setInt(3, max);
                ps.setLong(4, now);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    tokens.put(rs.getString(1), rs.getLong(2));
                  }
                }
              }
              if (tokens.isEmpty()) {
                return List.<Row>of();
              }
              List<Object> ids = new ArrayList<>(tokens.keySet());
              List<Row> claimed =
                  JdbcRows.all(
                      c,
                      CLAIMED.formatted(JdbcRows.parameters(ids.size())),
                      "webhook delivery",
                      rs ->
                          new Row(
                              rs.getString(1),
                              rs.getString(2),
                              rs.getString(3),
                              WebhookEventType.fromWire(rs.getString(4)),
                              rs.getString(5),
                              rs.getLong(6),
                              rs.getInt(7),
                              rs.getString(8),
                              rs.getBytes(9),
                              rs.getBytes(10),
                              JdbcRows.nullableLong(rs, 11),
                              now,
                              tokens.get(rs.getString(1))),
                      ids.toArray());
              return claimed.stream()
                  .sorted(Comparator.comparingLong(Row::createdAtMs).thenComparing(Row::deliveryId))
                  .toList();
            });
    List<ClaimedDelivery> out = new ArrayList<>(rows.size());
    StoreUnavailableException unopened = null;
    for (Row r : rows) {
      List<byte[]> keys = new ArrayList<>(2);
      try {
        keys.add(sealer.open(r.secret()));
      } catch (StoreUnavailableException e) {
        // Never signed with a wrong key: the row stays leased and comes back after its lease.
        unopened = e;
        continue;
      }
      if (r.previous() != null && r.previousUntilMs() != null && r.previousUntilMs() > r.nowMs()) {
        try {
          keys.add(sealer.open(r.previous()));
        } catch (StoreUnavailableException e) {
          // Sealed under a key no longer configured (rotated after a key change): current only.
        }
      }
      out.add(
          new ClaimedDelivery(
              r.deliveryId(),
              r.projectId(),
              r.webhookId(),
              r.type(),
              r.payload(),
              r.createdAtMs(),
              r.attempts(),
              URI.create(r.url()),
              keys,
              r.claimToken()));
    }
    if (out.isEmpty() && unopened != null) {
      throw unopened;
    }
    return out;
  }

  @Override
  public boolean recordAttempt(String deliveryId, long claimToken, AttemptResult result) {
    Objects.requireNonNull(deliveryId, "deliveryId");
    Objects.requireNonNull(result, "result");
    Integer status = result.statusCode();
    Integer storedStatus = status != null && status >= 100 && status <= 599 ? status : null;
    String error = result.delivered() ? null : result.error();
    return jdbc.statement(
            "webhook attempt record",
            result.delivered()
                ? recordDelivered
                : result.nextAttemptAtMs() != null ? recordRetry : recordFailed,
            ps -> {
              int i = 1;
              JdbcRows.setNullableInt(ps, i++, storedStatus);
              if (!result.delivered()) {
                ps.setString(i++, error);
                if (result.nextAttemptAtMs() != null) {
                  ps.setLong(i++, result.nextAttemptAtMs());
                }
              }
              ps.setString(i++, deliveryId);
              ps.setLong(i, claimToken);
              return ps.executeUpdate();
            })
        == 1;
  }

  @Override
  public OptionalLong oldestDueCreatedAtMs() {
    return jdbc.query(
        "webhook queue age",
        oldestDue,
        rs -> {
          if (!rs.next()) {
            return OptionalLong.empty();
          }
          long v = rs.getLong(1);
          return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(v);
        });
  }

  // --- rows ---

  private static Optional<WebhookEndpoint> findEndpoint(
      Connection c, String projectId, String webhookId) throws SQLException {
    Set<WebhookEventType> events = EnumSet.noneOf(WebhookEventType.class);
    for (String wire :
        JdbcRows.all(
            c, EVENTS_OF_ENDPOINT, "webhook event", rs -> rs.getString(2), projectId, webhookId)) {
      events.add(WebhookEventType.fromWire(wire));
    }
    return Optional.ofNullable(
        JdbcRows.one(
            c, FIND_ENDPOINT, "webhook", rs -> endpoint(rs, events), projectId, webhookId));
  }

  private static WebhookEndpoint endpoint(ResultSet rs, Set<WebhookEventType> events)
      throws SQLException {
    return new WebhookEndpoint(
        rs.getString(1),
        rs.getString(2),
        URI.create(rs.getString(3)),
        events,
        thresholds(rs.getString(4)),
        rs.getLong(5),
        rs.getLong(6));
  }

  private static WebhookDelivery delivery(ResultSet rs) throws SQLException {
    Integer code = JdbcRows.nullableInt(rs, 8);
    return new WebhookDelivery(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        WebhookEventType.fromWire(rs.getString(4)),
        rs.getLong(5),
        rs.getInt(6),
        DeliveryStatus.fromWire(rs.getString(7)),
        code,
        rs.getString(9),
        JdbcRows.nullableLong(rs, 10),
        JdbcRows.nullableLong(rs, 11));
  }

  private static List<WebhookEventType> sorted(Set<WebhookEventType> events) {
    return events.stream().sorted().toList();
  }

  private static String thresholdText(List<BigDecimal> thresholds) {
    return thresholds == null
        ? ""
        : thresholds.stream().map(BigDecimal::toPlainString).collect(Collectors.joining(" "));
  }

  private static List<BigDecimal> thresholds(String text) {
    if (text == null || text.isEmpty()) {
      return List.of();
    }
    return Arrays.stream(text.split(" ")).map(BigDecimal::new).toList();
  }
}
