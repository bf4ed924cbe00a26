package dev.qinglong.app.console;

import dev.qinglong.app.http.PageHeaders;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.CacheControl;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The operator console: static files from {@code classpath:/console/} at {@code /console/}, on the
 * roles that serve the management API only. In a reader or worker process none of this is
 * registered, so {@code /console/} is the ordinary 404. The console has no server side of its own:
 * its script calls the public {@code /v1} API with the user's bearer token, so it can do exactly
 * what that user may do.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ConsoleConfiguration implements WebMvcConfigurer {
  static final String LOCATION = "classpath:/console/";

  @Override
  public void addResourceHandlers(ResourceHandlerRegistry registry) {
    registry
        .addResourceHandler("/console/**")
        .addResourceLocations(LOCATION)
        .setCacheControl(CacheControl.noCache());
  }

  /** Security headers on every console response ({@link PageHeaders}). */
  @Bean
  FilterRegistrationBean<PageHeaders> consoleHeaders() {
    FilterRegistrationBean<PageHeaders> registration =
        new FilterRegistrationBean<>(new PageHeaders());
    registration.addUrlPatterns("/console", "/console/*");
    return registration;
  }
}
