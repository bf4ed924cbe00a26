package dev.qinglong.app.http;

import dev.qinglong.app.platform.QingLongProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** Registers the shield ahead of Spring Security's filter chain. */
@Configuration(proxyBeanMethods = false)
public class ShieldConfiguration {
  @Bean
  FilterRegistrationBean<RequestShieldFilter> requestShieldFilter(QingLongProperties properties) {
    FilterRegistrationBean<RequestShieldFilter> registration =
        new FilterRegistrationBean<>(
            new RequestShieldFilter(
                properties.getShield(),
                ArtifactRoutes::isUpload,
                properties.getArtifacts().getMaxBytes()));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
    registration.addUrlPatterns("/*");
    return registration;
  }
}
