package dev.qinglong.app.http;

import dev.qinglong.app.http.RequestShieldFilter.OwnBodyCap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Registers the shield ahead of Spring Security's filter chain. Routes with their own body cap
 * (artifact uploads) come from the feature that serves them, as an {@link OwnBodyCap} bean.
 */
@Configuration(proxyBeanMethods = false)
public class ShieldConfiguration {
  @Bean
  FilterRegistrationBean<RequestShieldFilter> requestShieldFilter(
      ShieldProperties shield, ObjectProvider<OwnBodyCap> ownBodyCap) {
    FilterRegistrationBean<RequestShieldFilter> registration =
        new FilterRegistrationBean<>(
            new RequestShieldFilter(shield, ownBodyCap.getIfAvailable(() -> OwnBodyCap.NONE)));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
    registration.addUrlPatterns("/*");
    return registration;
  }
}
