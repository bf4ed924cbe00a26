package dev.qinglong.jdbc;

import java.util.Objects;

/**
 * A dialect's statements for {@link JdbcManagementQuotaStore}.
 *
 * @param consume the ADR 000 single statement. Parameters: project, subject type, subject id,
 *     operation, receipt id, window ms, limit. Returns {@code (window_started_at_ms,
 *     consumed_count)} only when the receipt was counted; a replay or a full window updates nothing
 *     and returns no row
 * @param readBucket parameters: receipt id, project, subject type, subject id, operation. Returns
 *     {@code (window_started_at_ms, consumed_count, has_receipt, now_ms)} on the database clock
 */
public record QuotaSql(String consume, String readBucket) {
  public QuotaSql {
    Objects.requireNonNull(consume);
    Objects.requireNonNull(readBucket);
  }
}
