package dev.qinglong.app.http;

import dev.qinglong.app.platform.PlatformProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Registers the {@link RequestIdFilter} first and the {@link RoleFilter} right after the shield,
 * ahead of Spring Security.
 */
@Configuration(proxyBeanMethods = false)
public class RoleConfiguration {
  private static final Logger log = LoggerFactory.getLogger(RoleConfiguration.class);

  /**
   * First of all filters, so the request id is in the MDC for everything else, Spring's observation
   * of {@code http.server.requests} included.
   */
  @Bean
  FilterRegistrationBean<RequestIdFilter> requestIdFilter() {
    FilterRegistrationBean<RequestIdFilter> registration =
        new FilterRegistrationBean<>(new RequestIdFilter());
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    registration.addUrlPatterns("/*");
    return registration;
  }

  @Bean
  FilterRegistrationBean<RoleFilter> roleFilter(PlatformProperties properties) {
    log.info("role={}", properties.role().name().toLowerCase(java.util.Locale.ROOT));
    FilterRegistrationBean<RoleFilter> registration =
        new FilterRegistrationBean<>(new RoleFilter(properties.role()));
    // After the shield (HIGHEST_PRECEDENCE + 2), which runs inside Spring's HTTP observation.
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 3);
    registration.addUrlPatterns("/*");
    return registration;
  }
}
