package dev.qinglong.app.support;

import dev.qinglong.app.QingLongApplication;
import dev.qinglong.jdbc.backend.DataSourceDecorator;
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
  public final Http http;

  private TestApp(
      ConfigurableApplicationContext context, Path dataDir, List<FaultyDataSource> faults) {
    this.context = context;
    this.dataDir = dataDir;
    this.faults = faults;
    this.http = new Http(((WebServerApplicationContext) context).getWebServer().getPort());
  }

  /** Starts the app with {@code qinglong.data-dir=dataDir} and the given extra properties. */
  public static TestApp start(Path dataDir, Map<String, String> properties) {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("server.port", "0");
    all.put("server.address", "127.0.0.1");
    all.put("qinglong.data-dir", dataDir.toString());
    all.put("spring.lifecycle.timeout-per-shutdown-phase", "1s");
    all.putAll(properties);
    List<FaultyDataSource> faults = new ArrayList<>();
    DataSourceDecorator decorator =
        (component, dataSource) -> {
          FaultyDataSource f = new FaultyDataSource(dataSource);
          faults.add(f);
          return f;
        };
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(QingLongApplication.class)
            .initializers(
                ctx -> ctx.getBeanFactory().registerSingleton("testDataSourceDecorator", decorator))
            .run(
                all.entrySet().stream()
                    .map(e -> "--" + e.getKey() + "=" + e.getValue())
                    .toArray(String[]::new));
    return new TestApp(context, dataDir, faults);
  }

  public static TestApp start(Path dataDir) {
    return start(dataDir, Map.of());
  }

  /** The token of a dev-tokens user. */
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

  public List<FaultyDataSource> faults() {
    return faults;
  }

  public void cutDatabase() {
    faults.forEach(FaultyDataSource::cut);
  }

  public void restoreDatabase() {
    faults.forEach(FaultyDataSource::restore);
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
