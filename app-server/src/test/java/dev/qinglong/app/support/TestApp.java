package dev.qinglong.app.support;

import dev.qinglong.app.QingLongApplication;
import dev.qinglong.backend.DataSourceDecorator;
import dev.qinglong.testkit.FaultyDataSource;
import jakarta.servlet.ServletRequestEvent;
import jakarta.servlet.ServletRequestListener;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One running application (its own Spring context, Tomcat on a random loopback port, own pools).
 * Every data source is wrapped in a {@link FaultyDataSource} the test can cut off.
 */
public final class TestApp implements AutoCloseable {
  private final ConfigurableApplicationContext context;
  private final Path dataDir;
  private final List<FaultyDataSource> faults;
  private final RequestsInProgress requests;

  /** The API port. */
  public final Http http;

  /**
   * The management (actuator) port: its own random port unless the test shares it with the API
   * ({@code management.server.port} given as {@code ""}); then the API port.
   */
  public final Http management;

  private TestApp(
      ConfigurableApplicationContext context,
      Path dataDir,
      List<FaultyDataSource> faults,
      RequestsInProgress requests) {
    this.context = context;
    this.dataDir = dataDir;
    this.faults = faults;
    this.requests = requests;
    this.http = new Http(((WebServerApplicationContext) context).getWebServer().getPort());
    String managementPort = context.getEnvironment().getProperty("local.management.port");
    this.management = managementPort == null ? http : new Http(Integer.parseInt(managementPort));
  }

  /**
   * Starts the app with {@code qinglong.data-dir=dataDir} and the given extra properties. Actuator
   * runs on its own random port ({@link #management}) and readiness is refreshed every 200 ms; a
   * property given as {@code ""} is left unset.
   */
  public static TestApp start(Path dataDir, Map<String, String> properties) {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("server.port", "0");
    all.put("server.address", "127.0.0.1");
    all.put("management.server.port", "0");
    all.put("management.server.address", "127.0.0.1");
    all.put("qinglong.readiness.refresh-interval", "200ms");
    all.put("qinglong.data-dir", dataDir.toString());
    all.put("spring.lifecycle.timeout-per-shutdown-phase", "1s");
    all.putAll(properties);
    all.values().removeIf(v -> "".equals(v));
    List<FaultyDataSource> faults = new ArrayList<>();
    DataSourceDecorator decorator =
        (component, dataSource) -> {
          FaultyDataSource f = new FaultyDataSource(dataSource);
          faults.add(f);
          return f;
        };
    RequestsInProgress requests = new RequestsInProgress();
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(QingLongApplication.class)
            .initializers(
                ctx -> {
                  ctx.getBeanFactory().registerSingleton("testDataSourceDecorator", decorator);
                  ctx.getBeanFactory().registerSingleton("testRequestsInProgress", requests);
                })
            .run(
                all.entrySet().stream()
                    .map(e -> "--" + e.getKey() + "=" + e.getValue())
                    .toArray(String[]::new));
    return new TestApp(context, dataDir, faults, requests);
  }

  public static TestApp start(Path dataDir) {
    return start(dataDir, Map.of());
  }

  /** The token of a dev-tokens user. */
  /**
   * Replaces {@code user}'s permissions in {@code project} through the API, as {@code admin}; fails
   * the test unless the answer is 200.
   */
  public void grant(String project, String user, String... permissions) {
    StringBuilder list = new StringBuilder();
    for (String p : permissions) {
      list.append(list.length() == 0 ? "" : ",").append('"').append(p).append('"');
    }
    Http.Response r =
        http.put(
            "/v1/projects/" + project + "/members/" + user,
            token("admin"),
            "{\"permissions\":[" + list + "]}");
    org.assertj.core.api.Assertions.assertThat(r.status()).as(r.body()).isEqualTo(200);
  }

  public String token(String user) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(dataDir.resolve("dev-tokens.properties"))) {
      p.load(r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String token = p.getProperty(user);
    if (token == null) {
      throw new IllegalArgumentException("no dev token for " + user);
    }
    return token;
  }

  /**
   * Polls readiness on the management port until it answers {@code status} (it is refreshed in the
   * background), for at most 15 s; returns the last answer.
   */
  public Http.Response awaitReadiness(int status) {
    long deadline = System.nanoTime() + 15_000_000_000L;
    Http.Response last = management.get("/actuator/health/readiness", null);
    while (last.status() != status && System.nanoTime() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      last = management.get("/actuator/health/readiness", null);
    }
    return last;
  }

  /**
   * Requests on the API port that the container has begun and not yet ended: an answer, its error
   * dispatch and whatever they log are done when this is 0. Tests wait on it to look for what a
   * request may still log, instead of sleeping for a guess.
   */
  public int requestsInProgress() {
    return requests.count.get();
  }

  /** Counts requests from the container's begin to its end of each (after any error dispatch). */
  private static final class RequestsInProgress implements ServletRequestListener {
    final AtomicInteger count = new AtomicInteger();

    @Override
    public void requestInitialized(ServletRequestEvent event) {
      count.incrementAndGet();
    }

    @Override
    public void requestDestroyed(ServletRequestEvent event) {
      count.decrementAndGet();
    }
  }

  public List<FaultyDataSource> faults() {
    return faults;
  }

  public void cutDatabase() {
    faults.forEach(FaultyDataSource::cut);
  }

  public void restoreDatabase() {
    faults.forEach(FaultyDataSource::restore);
  }

  /** The embedded web server (Tomcat). */
  public org.springframework.boot.web.server.WebServer webServer() {
    return ((WebServerApplicationContext) context).getWebServer();
  }

  /**
   * Requests the pre-authentication shield has admitted and not yet finished ({@code
   * RequestShieldFilter#inFlight}).
   */
  public int shieldInFlight() {
    return ((dev.qinglong.app.http.RequestShieldFilter)
            bean(
                    "requestShieldFilter",
                    org.springframework.boot.web.servlet.FilterRegistrationBean.class)
                .getFilter())
        .inFlight();
  }

  /**
   * Requests counted against their user and not yet finished ({@code
   * PrincipalShieldFilter#inFlight}).
   */
  public int principalInFlight() {
    return ((dev.qinglong.app.http.PrincipalShieldFilter)
            bean(
                    "principalShieldFilter",
                    org.springframework.boot.web.servlet.FilterRegistrationBean.class)
                .getFilter())
        .inFlight();
  }

  public <T> T bean(Class<T> type) {
    return context.getBean(type);
  }

  public <T> T bean(String name, Class<T> type) {
    return context.getBean(name, type);
  }

  /** How many beans of {@code type} the context holds (0 when a feature is not loaded). */
  public int beanCount(Class<?> type) {
    return context.getBeanNamesForType(type).length;
  }

  public Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() {
    context.close();
  }
}
