package dev.qinglong.app.http;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The API viewer: Swagger UI from its Maven Central webjar ({@code org.webjars:swagger-ui}, no CDN)
 * at {@value #PATH}, showing the OpenAPI document springdoc serves at {@code /v3/api-docs}. Our own
 * {@code index.html} and {@code qinglong-init.js} fix the document's URL; the webjar supplies only
 * the bundle and its stylesheet (its demo files are not served, and Spring Boot's default {@code
 * /webjars/**} mapping is off: {@code spring.web.resources.add-mappings=false}). Every response
 * carries the console's Content-Security-Policy ({@link PageHeaders}). Only roles {@code all} and
 * {@code writer} serve it (a read gateway or worker answers 404, see {@link RoleFilter}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ApiViewerConfiguration implements WebMvcConfigurer {
  public static final String PATH = "/swagger-ui/";
  private static final String WEBJAR_POM = "META-INF/maven/org.webjars/swagger-ui/pom.properties";

  /**
   * The webjar's files the viewer needs, and nothing else of it: not its demo {@code index.html},
   * its {@code swagger-initializer.js} (which points at the petstore) or its {@code
   * oauth2-redirect.html}. Everything else under {@value #PATH} is ours or the ordinary 404.
   */
  static final List<String> WEBJAR_FILES = List.of("swagger-ui-bundle.js", "swagger-ui.css");

  @Override
  public void addResourceHandlers(ResourceHandlerRegistry registry) {
    String webjar = "classpath:/META-INF/resources/webjars/swagger-ui/" + webjarVersion() + "/";
    // A pattern with a variable: an exact pattern leaves the handler no path to resolve.
    String names = String.join("|", WEBJAR_FILES.stream().map(Pattern::quote).toList());
    registry.addResourceHandler(PATH + "{file:" + names + "}").addResourceLocations(webjar);
    registry
        .addResourceHandler(PATH + "**")
        .addResourceLocations("classpath:/qinglong-swagger-ui/");
  }

  /** The console's headers, Content-Security-Policy included, on every viewer response. */
  @Bean
  FilterRegistrationBean<PageHeaders> apiViewerHeaders() {
    FilterRegistrationBean<PageHeaders> registration =
        new FilterRegistrationBean<>(new PageHeaders());
    registration.addUrlPatterns("/swagger-ui", "/swagger-ui/*");
    return registration;
  }

  @Override
  public void addViewControllers(ViewControllerRegistry registry) {
    registry.addRedirectViewController("/swagger-ui", PATH + "index.html");
    registry.addRedirectViewController(PATH, PATH + "index.html");
  }

  /** The webjar's version, from its own Maven metadata: one place (the pom) names it. */
  public static String webjarVersion() {
    Properties pom = new Properties();
    try (InputStream in = new ClassPathResource(WEBJAR_POM).getInputStream()) {
      pom.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("the swagger-ui webjar is missing from the build", e);
    }
    String version = pom.getProperty("version");
    if (version == null || !version.matches("[0-9A-Za-z.-]+")) {
      throw new IllegalStateException("the swagger-ui webjar has no usable version");
    }
    return version;
  }
}
