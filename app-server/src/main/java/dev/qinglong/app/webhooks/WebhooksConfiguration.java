package dev.qinglong.app.webhooks;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import dev.qinglong.app.platform.WebhooksProperties;
import dev.qinglong.core.webhooks.WebhookTargets;
import java.net.InetAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The webhook target rules ({@link WebhookTargets}), shared by registration (roles {@code all},
 * {@code writer}) and delivery (roles {@code all}, {@code worker}): the same rules at both ends,
 * resolved through the system resolver.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WRITER, Role.WORKER})
public class WebhooksConfiguration {
  private static final Logger log = LoggerFactory.getLogger(WebhooksConfiguration.class);

  @Bean
  WebhookTargets webhookTargets(WebhooksProperties properties) {
    if (properties.allowInsecureTargets()) {
      log.warn(
          "webhooks.insecure-targets: qinglong.webhooks.allow-insecure-targets=true lets webhooks"
              + " target http URLs and loopback, private and link-local addresses (this host's"
              + " own network); for development and tests only, never in production");
    }
    return new WebhookTargets(properties.allowInsecureTargets(), InetAddress::getAllByName);
  }
}
