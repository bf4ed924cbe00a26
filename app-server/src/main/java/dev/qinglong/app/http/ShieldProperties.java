package dev.qinglong.app.http;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
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
 */
@ConfigurationProperties("qinglong.shield")
@Validated
public record ShieldProperties(
    @Min(1) @Max(16 * 1024 * 1024) @DefaultValue("65536") long maxBodyBytes,
    @Min(1) @Max(100_000) @DefaultValue("64") int maxConcurrentRequests,
    @Min(1) @Max(100_000) @DefaultValue("16") int maxConcurrentRequestsPerClient) {}
