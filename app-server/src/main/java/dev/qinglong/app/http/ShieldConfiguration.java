package dev.qinglong.app.http;

import dev.qinglong.app.http.RequestShieldFilter.OwnBodyCap;
import dev.qinglong.app.http.RequestShieldFilter.OwnBudget;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Registers the shield ahead of Spring Security's filter chain, and the per-principal bound right
 * after it. Routes with their own body cap (artifact uploads) or their own concurrency budget
 * (downloads) come from the feature that serves them, as an {@link OwnBodyCap} or {@link OwnBudget}
 * bean.
 */
@Configuration(proxyBeanMethods = false)
public class ShieldConfiguration {
  @Bean
  ShieldRefusals shieldRefusals(MeterRegistry registry) {
    return new ShieldRefusals(registry);
  }

  /**
   * Inside Spring's HTTP observation filter ({@code HIGHEST_PRECEDENCE + 1}), so the shield's own
   * 400/413/429/503 answers are counted in {@code http.server.requests} like every other answer.
   */
  @Bean
  FilterRegistrationBean<RequestShieldFilter> requestShieldFilter(
      ShieldProperties shield,
      ShieldRefusals refusals,
      ObjectProvider<OwnBodyCap> ownBodyCap,
      ObjectProvider<OwnBudget> ownBudget) {
    FilterRegistrationBean<RequestShieldFilter> registration =
        new FilterRegistrationBean<>(
            new RequestShieldFilter(
                shield,
                ownBodyCap.getIfAvailable(() -> OwnBodyCap.NONE),
                ownBudget.getIfAvailable(() -> OwnBudget.NONE),
                refusals));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 2);
    registration.addUrlPatterns("/*");
    return registration;
  }

  @Bean
  FilterRegistrationBean<PrincipalShieldFilter> principalShieldFilter(
      ShieldProperties shield, ShieldRefusals refusals) {
    FilterRegistrationBean<PrincipalShieldFilter> registration =
        new FilterRegistrationBean<>(new PrincipalShieldFilter(shield, refusals));
    // Inside Spring Security's chain (which calls the rest of the chain with the user set).
    registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER + 1);
    registration.addUrlPatterns("/v1/*");
    return registration;
  }
}
