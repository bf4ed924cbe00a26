package dev.qinglong.app.http;

import dev.qinglong.app.platform.PlatformProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** Registers the {@link RoleFilter} right after the shield, ahead of Spring Security. */
@Configuration(proxyBeanMethods = false)
public class RoleConfiguration {
  private static final Logger log = LoggerFactory.getLogger(RoleConfiguration.class);

  @Bean
  FilterRegistrationBean<RoleFilter> roleFilter(PlatformProperties properties) {
    log.info("role={}", properties.role().name().toLowerCase(java.util.Locale.ROOT));
    FilterRegistrationBean<RoleFilter> registration =
        new FilterRegistrationBean<>(new RoleFilter(properties.role()));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 2);
    registration.addUrlPatterns("/*");
    return registration;
  }
}
