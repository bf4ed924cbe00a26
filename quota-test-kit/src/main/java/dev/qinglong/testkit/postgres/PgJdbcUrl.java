package dev.qinglong.testkit.postgres;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A parsed {@code jdbc:postgresql:} URL, split into host list, database and query parameters.
 *
 * <p>Why not {@code org.postgresql.Driver.parseURL}: it flattens everything into driver properties
 * (defaults included), whereas the test kit only needs to swap the database name and take the
 * credentials out, keeping every other parameter exactly as the user wrote it.
 */
final class PgJdbcUrl {

  private static final String PREFIX = "jdbc:postgresql:";

  private final String hosts;
  private final String database;
  private final List<String> params;

  private PgJdbcUrl(String hosts, String database, List<String> params) {
    this.hosts = hosts;
    this.database = database;
    this.params = List.copyOf(params);
  }

  /**
   * Parses {@code jdbc:postgresql://host[:port][,host2...]/database[?k=v&...]}; the short forms
   * {@code jdbc:postgresql:database} and {@code jdbc:postgresql:/} mean {@code localhost}.
   *
   * @throws IllegalArgumentException if the text is not a PostgreSQL JDBC URL
   */
  static PgJdbcUrl parse(String url) {
    if (url == null || !url.startsWith(PREFIX)) {
      throw new IllegalArgumentException(
          "not a PostgreSQL JDBC URL (expected jdbc:postgresql://host:port/database): " + url);
    }
    String rest = url.substring(PREFIX.length());
    int question = rest.indexOf('?');
    String path = question < 0 ? rest : rest.substring(0, question);
    String query = question < 0 ? "" : rest.substring(question + 1);

    String hosts;
    String database;
    if (path.startsWith("//")) {
      int slash = path.indexOf('/', 2);
      hosts = slash < 0 ? path.substring(2) : path.substring(2, slash);
      database = slash < 0 ? "" : path.substring(slash + 1);
    } else {
      hosts = "localhost";
      database = path.startsWith("/") ? path.substring(1) : path;
    }
    if (hosts.isEmpty()) {
      hosts = "localhost";
    }

    List<String> params = new ArrayList<>();
    for (String param : query.split("&")) {
      if (!param.isEmpty()) {
        params.add(param);
      }
    }
    return new PgJdbcUrl(hosts, database, params);
  }

  /** Replaces the database name in {@code jdbcUrl}, keeping hosts and parameters. */
  static String withDatabase(String jdbcUrl, String database) {
    return parse(jdbcUrl).withDatabase(database).toString();
  }

  String database() {
    return database;
  }

  PgJdbcUrl withDatabase(String newDatabase) {
    return new PgJdbcUrl(hosts, newDatabase, params);
  }

  /** The URL-decoded value of the first parameter named {@code name}, or {@code null}. */
  String param(String name) {
    for (String param : params) {
      int eq = param.indexOf('=');
      String key = eq < 0 ? param : param.substring(0, eq);
      if (key.equalsIgnoreCase(name)) {
        return eq < 0 ? "" : URLDecoder.decode(param.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /** This URL without the named parameters (used to keep credentials out of URLs and logs). */
  PgJdbcUrl without(String... names) {
    Set<String> dropped = new HashSet<>();
    for (String name : names) {
      dropped.add(name.toLowerCase(Locale.ROOT));
    }
    List<String> kept = new ArrayList<>();
    for (String param : params) {
      int eq = param.indexOf('=');
      String key = eq < 0 ? param : param.substring(0, eq);
      if (!dropped.contains(key.toLowerCase(Locale.ROOT))) {
        kept.add(param);
      }
    }
    return new PgJdbcUrl(hosts, database, kept);
  }

  @Override
  public String toString() {
    String url = "jdbc:postgresql://" + hosts + "/" + database;
    return params.isEmpty() ? url : url + "?" + String.join("&", params);
  }
}
