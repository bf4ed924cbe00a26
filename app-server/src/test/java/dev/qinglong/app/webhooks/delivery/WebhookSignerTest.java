package dev.qinglong.app.webhooks.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import dev.qinglong.core.webhooks.WebhookSecrets;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The signer against the official Standard Webhooks verifier (independent of the sending code). */
class WebhookSignerTest {
  private static final String BODY =
      "{\"type\":\"webhook.test\",\"timestamp\":\"2026-12-04T18:00:00.000Z\",\"data\":{\"projectId\":\"p1\"}}";

  private static Map<String, List<String>> headers(String id, long ts, String signature) {
    return Map.of(
        "webhook-id", List.of(id),
        "webhook-timestamp", List.of(Long.toString(ts)),
        "webhook-signature", List.of(signature));
  }

  @Test
  void theOfficialVerifierAcceptsTheSignature() throws Exception {
    byte[] key = WebhookSecrets.generate();
    long now = System.currentTimeMillis() / 1000;
    String signature =
        WebhookSigner.signatureHeader(
            "msg_abc", now, BODY.getBytes(StandardCharsets.UTF_8), List.of(key));

    assertThat(signature).startsWith("v1,").doesNotContain(" ");
    new Webhook(WebhookSecrets.text(key)).verify(BODY, headers("msg_abc", now, signature));
  }

  @Test
  void aChangedBodyIdOrTimestampOrAnotherKeyIsRejected() throws Exception {
    byte[] key = WebhookSecrets.generate();
    long now = System.currentTimeMillis() / 1000;
    String signature =
        WebhookSigner.signatureHeader(
            "msg_abc", now, BODY.getBytes(StandardCharsets.UTF_8), List.of(key));
    Webhook verifier = new Webhook(WebhookSecrets.text(key));

    assertThatThrownBy(() -> verifier.verify(BODY + " ", headers("msg_abc", now, signature)))
        .isInstanceOf(WebhookVerificationException.class);
    assertThatThrownBy(() -> verifier.verify(BODY, headers("msg_abd", now, signature)))
        .isInstanceOf(WebhookVerificationException.class);
    assertThatThrownBy(() -> verifier.verify(BODY, headers("msg_abc", now + 1, signature)))
        .isInstanceOf(WebhookVerificationException.class);
    assertThatThrownBy(
            () ->
                new Webhook(WebhookSecrets.text(WebhookSecrets.generate()))
                    .verify(BODY, headers("msg_abc", now, signature)))
        .isInstanceOf(WebhookVerificationException.class);
  }

  @Test
  void duringARotationBothSecretsVerify() throws Exception {
    byte[] current = WebhookSecrets.generate();
    byte[] previous = WebhookSecrets.generate();
    long now = System.currentTimeMillis() / 1000;
    String signature =
        WebhookSigner.signatureHeader(
            "msg_rot", now, BODY.getBytes(StandardCharsets.UTF_8), List.of(current, previous));

    assertThat(signature.split(" ")).hasSize(2).allSatisfy(s -> assertThat(s).startsWith("v1,"));
    new Webhook(WebhookSecrets.text(current)).verify(BODY, headers("msg_rot", now, signature));
    new Webhook(WebhookSecrets.text(previous)).verify(BODY, headers("msg_rot", now, signature));
  }

  @Test
  void aNonAsciiBodyIsSignedAsItsUtf8Bytes() {
    byte[] key = WebhookSecrets.generate();
    long now = System.currentTimeMillis() / 1000;
    String body = "{\"data\":{\"note\":\"青龙 ✓\"}}";
    String signature =
        WebhookSigner.signatureHeader(
            "msg_u", now, body.getBytes(StandardCharsets.UTF_8), List.of(key));

    assertThatCode(
            () ->
                new Webhook(WebhookSecrets.text(key))
                    .verify(body, headers("msg_u", now, signature)))
        .doesNotThrowAnyException();
  }

  @Test
  void noKeyOrAnIdWithADotIsRefused() {
    byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> WebhookSigner.signatureHeader("msg_a", 1, body, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                WebhookSigner.signatureHeader("msg.a", 1, body, List.of(WebhookSecrets.generate())))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
