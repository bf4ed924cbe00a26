package dev.qinglong.app.http;

import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.Role;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The API viewer: Swagger UI from its Maven Central webjar ({@code org.webjars:swagger-ui}, no CDN)
 * at {@value #PATH}, showing the checked-in document served at {@link OpenApiController#PATH}. Our
 * own {@code index.html} and {@code qinglong-init.js} come first and fix the document's URL; the
 * webjar supplies the bundle and its stylesheet. Only roles {@code all} and {@code writer} serve it
 * (a read gateway or worker answers 404, see {@link RoleFilter}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnRole({Role.ALL, Role.WRITER})
public class ApiViewerConfiguration implements WebMvcConfigurer {
  public static final String PATH = "/swagger-ui/";
  private static final String WEBJAR_POM = "META-INF/maven/org.webjars/swagger-ui/pom.properties";

  @Override
  public void addResourceHandlers(ResourceHandlerRegistry registry) {
    registry
        .addResourceHandler(PATH + "**")
        .addResourceLocations(
            "classpath:/qinglong-swagger-ui/",
            "classpath:/META-INF/resources/webjars/swagger-ui/" + webjarVersion() + "/");
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
