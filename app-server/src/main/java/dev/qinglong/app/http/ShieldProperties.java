package dev.qinglong.app.http;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code qinglong.shield.*}: the process-local pre-authentication shield ({@link
 * RequestShieldFilter}).
 *
 * @param maxBodyBytes Largest accepted request body in bytes (JSON); larger gets 413 before it is
 *     read.
 * @param maxConcurrentRequests Requests served at once by this process; excess gets 503 at once.
 * @param maxConcurrentRequestsPerClient Requests served at once for one client address; excess gets
 *     429 at once.
 * @param maxConcurrentRequestsPerPrincipal Requests served at once for one authenticated user, from
 *     any address; excess gets 429 at once ({@link PrincipalShieldFilter}).
 * @param trustedProxies Addresses or CIDR blocks of the proxies (the ingress) whose {@code
 *     X-Forwarded-For} names the client ({@link ClientAddresses}); empty: the TCP peer is the
 *     client.
 */
@ConfigurationProperties("qinglong.shield")
@Validated
public record ShieldProperties(
    @Min(1) @Max(16 * 1024 * 1024) @DefaultValue("65536") long maxBodyBytes,
    @Min(1) @Max(100_000) @DefaultValue("64") int maxConcurrentRequests,
    @Min(1) @Max(100_000) @DefaultValue("16") int maxConcurrentRequestsPerClient,
    @Min(1) @Max(100_000) @DefaultValue("8") int maxConcurrentRequestsPerPrincipal,
    @NotNull @DefaultValue List<String> trustedProxies) {

  public ShieldProperties {
    trustedProxies = trustedProxies == null ? null : List.copyOf(trustedProxies);
    if (trustedProxies != null) {
      new ClientAddresses(trustedProxies); // refuses the start on an entry that is no address
    }
  }
}
