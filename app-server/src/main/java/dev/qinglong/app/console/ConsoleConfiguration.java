package dev.qinglong.app.console;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.CacheControl;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The operator console (DESIGN §7): static files from {@code classpath:/console/} at {@code
 * /console/}, on the roles that serve the management API only. In a reader or worker process none
 * of this is registered, so {@code /console/} is the ordinary 404. The console has no server side
 * of its own: its script calls the public {@code /v1} API with the user's bearer token, so it can
 * do exactly what that user may do.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ConsoleConfiguration implements WebMvcConfigurer {
  static final String LOCATION = "classpath:/console/";

  /**
   * Scripts and styles only from this origin (no inline script or style), calls only to this
   * origin, never framed, and no referrer leaves the page.
   */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
          + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  @Override
  public void addResourceHandlers(ResourceHandlerRegistry registry) {
    registry
        .addResourceHandler("/console/**")
        .addResourceLocations(LOCATION)
        .setCacheControl(CacheControl.noCache());
  }

  @Bean
  FilterRegistrationBean<ConsoleHeaders> consoleHeaders() {
    FilterRegistrationBean<ConsoleHeaders> registration =
        new FilterRegistrationBean<>(new ConsoleHeaders());
    registration.addUrlPatterns("/console", "/console/*");
    return registration;
  }

  /** Security headers on every console response. */
  static final class ConsoleHeaders extends OncePerRequestFilter {
    @Override
    protected void doFilterInternal(
        HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws ServletException, IOException {
      response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      response.setHeader("X-Content-Type-Options", "nosniff");
      response.setHeader("Referrer-Policy", "no-referrer");
      response.setHeader("X-Frame-Options", "DENY");
      chain.doFilter(request, response);
    }
  }
}
