package dev.qinglong.app.http;

import dev.qinglong.app.http.security.AuthProperties;
import dev.qinglong.app.http.security.DevTokens;
import dev.qinglong.app.platform.ConditionalOnRole;
import dev.qinglong.app.platform.PlatformProperties;
import dev.qinglong.app.platform.Role;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Once a process that serves the console and the API viewer (roles {@code all} and {@code writer})
 * is ready, one INFO line with their addresses on the port it is bound to, and in dev-tokens mode
 * where the tokens file is: what a user needs after {@code java -jar app.jar}.
 */
@Component
@ConditionalOnRole({Role.ALL, Role.WRITER})
class StartedLine implements ApplicationListener<ApplicationReadyEvent> {
  private static final Logger log = LoggerFactory.getLogger(StartedLine.class);

  private final PlatformProperties platform;
  private final AuthProperties auth;

  StartedLine(PlatformProperties platform, AuthProperties auth) {
    this.platform = platform;
    this.auth = auth;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (!(event.getApplicationContext() instanceof WebServerApplicationContext web)) {
      return;
    }
    Environment env = event.getApplicationContext().getEnvironment();
    String base = base(env, web.getWebServer().getPort());
    StringBuilder line =
        new StringBuilder("QingLong started: console ")
            .append(base)
            .append("/console/, API viewer ")
            .append(base)
            .append(ApiViewerConfiguration.PATH);
    if (auth.mode() == AuthProperties.Mode.DEV_TOKENS) {
      line.append(", dev tokens in ").append(platform.dataDir().resolve(DevTokens.FILE_NAME));
    }
    log.info("{}", line);
  }

  /** {@code http(s)://host:port[/context-path]}; localhost when bound to every interface. */
  static String base(Environment env, int port) {
    String scheme = env.getProperty("server.ssl.enabled", Boolean.class, false) ? "https" : "http";
    String host = host(env.getProperty("server.address"));
    String contextPath = env.getProperty("server.servlet.context-path", "");
    if (contextPath.endsWith("/")) {
      contextPath = contextPath.substring(0, contextPath.length() - 1);
    }
    return scheme + "://" + host + ":" + port + contextPath;
  }

  private static String host(String address) {
    if (address == null || address.isBlank()) {
      return "localhost";
    }
    try {
      InetAddress a = InetAddress.getByName(address.trim());
      if (a.isAnyLocalAddress()) {
        return "localhost";
      }
      String literal = a.getHostAddress();
      return literal.contains(":") ? "[" + literal + "]" : literal;
    } catch (UnknownHostException e) {
      return address.trim();
    }
  }
}
