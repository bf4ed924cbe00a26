package dev.qinglong.app.http;

import org.apache.catalina.Container;
import org.apache.catalina.Valve;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * What the servlet container does before the application sees a request: it never parses a body
 * into parameters (no method's body is form-decoded, so nothing can read a body before
 * authentication through {@code getParameter}), and what it refuses on its own is answered as a
 * problem document by {@link ProblemErrorReportValve} instead of its HTML error page.
 */
@Configuration(proxyBeanMethods = false)
public class ContainerConfiguration {

  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemContainer() {
    return new ProblemContainerCustomizer();
  }

  /** Runs after Spring Boot's own Tomcat customizer, which adds an HTML ErrorReportValve. */
  static final class ProblemContainerCustomizer
      implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {
    @Override
    public void customize(TomcatServletWebServerFactory factory) {
      factory.addConnectorCustomizers(connector -> connector.setParseBodyMethods(""));
      factory.addContextCustomizers(
          context -> {
            Container host = context.getParent();
            for (Valve valve : host.getPipeline().getValves()) {
              if (valve instanceof ErrorReportValve
                  && !(valve instanceof ProblemErrorReportValve)) {
                host.getPipeline().removeValve(valve);
              }
            }
            host.getPipeline().addValve(new ProblemErrorReportValve());
            if (host instanceof StandardHost standardHost) {
              // Otherwise the host adds its default (HTML) report valve when it starts.
              standardHost.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
            }
          });
    }

    @Override
    public int getOrder() {
      return Ordered.LOWEST_PRECEDENCE;
    }
  }
}
