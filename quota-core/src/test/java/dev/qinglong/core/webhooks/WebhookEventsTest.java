package dev.qinglong.core.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class WebhookEventsTest {
  @Test
  void bodiesAreTypeTimestampAndDataInThatOrder() {
    assertThat(
            WebhookEvents.payload(
                WebhookEventType.APPROVAL_PENDING,
                1_700_000_000_123L,
                WebhookEvents.data()
                    .put("projectId", "demo")
                    .put("n", 2)
                    .put("digest", (String) null)
                    .put("fraction", new BigDecimal("0.80"))
                    .put("quoted", "a\"b\\c\n\u0001")))
        .isEqualTo(
            "{\"type\":\"approval.pending\",\"timestamp\":\"2023-11-14T22:13:20.123Z\","
                + "\"data\":{\"projectId\":\"demo\",\"n\":2,\"digest\":null,\"fraction\":0.80,"
                + "\"quoted\":\"a\\\"b\\\\c\\n\\u0001\"}}");
  }

  @Test
  void eventIdsAreMsgAndRandom() {
    String a = WebhookEvents.newDeliveryId();
    assertThat(a).matches("msg_[A-Za-z0-9_-]{22}");
    assertThat(WebhookEvents.newDeliveryId()).isNotEqualTo(a);
  }

  @Test
  void deliveryCursorsRoundTripAndRefuseForeignText() {
    DeliveryCursor c = new DeliveryCursor(1234L, "msg_abc");
    assertThat(DeliveryCursor.decode(c.encode())).isEqualTo(c);
    assertThat(DeliveryCursor.decode(null)).isNull();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DeliveryCursor.decode("bm9wZQ"))
        .isInstanceOf(dev.qinglong.core.kernel.ValidationException.class);
  }
}
