package dev.qinglong.core.webhooks;

import dev.qinglong.core.kernel.Cursors;
import dev.qinglong.core.kernel.ValidationException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A position in an endpoint's delivery log, which lists the newest first: the last delivery of the
 * page before. A page after it holds only deliveries strictly older in ({@code createdAtMs}, {@code
 * deliveryId}) order. On the wire it is opaque: base64url of {@code deliveries:v1:<ms>:<id>}.
 */
public record DeliveryCursor(long createdAtMs, String deliveryId) {
  /** The longest cursor accepted (an issued one is far shorter). */
  public static final int MAX_LENGTH = 256;

  private static final String PREFIX = "deliveries:v1:";
  private static final Pattern MS = Pattern.compile("0|[1-9][0-9]{0,17}");
  private static final Pattern ID = Pattern.compile("msg_[A-Za-z0-9_-]{1,64}");

  public DeliveryCursor {
    Objects.requireNonNull(deliveryId, "deliveryId");
  }

  /** The cursor that continues after {@code last}. */
  public static DeliveryCursor after(WebhookDelivery last) {
    return new DeliveryCursor(last.createdAtMs(), last.deliveryId());
  }

  /** The opaque wire form. */
  public String encode() {
    return Cursors.encode(PREFIX, createdAtMs + ":" + deliveryId);
  }

  /**
   * The position an opaque cursor names; null for null (the first page).
   *
   * @throws ValidationException ("cursor") if this server did not issue it
   */
  public static DeliveryCursor decode(String cursor) {
    return Cursors.decode(cursor, PREFIX, MAX_LENGTH, DeliveryCursor::position);
  }

  private static DeliveryCursor position(String rest) {
    int colon = rest.indexOf(':');
    if (colon < 0 || !MS.matcher(rest.substring(0, colon)).matches()) {
      throw new IllegalArgumentException("position");
    }
    String id = rest.substring(colon + 1);
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException("id");
    }
    return new DeliveryCursor(Long.parseLong(rest.substring(0, colon)), id);
  }
}
