package dev.qinglong.app.http;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * @param principalOverrides A user id → the requests served at once for that user instead of {@code
 *     maxConcurrentRequestsPerPrincipal} (a runtime service's account, say), each 1..100000. A user
 *     id with characters other than lower-case letters, digits and {@code -} is written in
 *     brackets: {@code qinglong.shield.principal-overrides[svc:runtime]=64}.
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
    @NotNull @DefaultValue
        Map<@NotBlank String, @NotNull @Min(1) @Max(100_000) Integer> principalOverrides,
    @NotNull @DefaultValue List<String> trustedProxies) {

  public ShieldProperties {
    trustedProxies = trustedProxies == null ? null : List.copyOf(trustedProxies);
    // Copied as bound (nulls kept) so that validation reports them by key.
    principalOverrides =
        principalOverrides == null
            ? null
            : Collections.unmodifiableMap(new LinkedHashMap<>(principalOverrides));
    if (trustedProxies != null) {
      new ClientAddresses(trustedProxies); // refuses the start on an entry that is no address
    }
  }
}
