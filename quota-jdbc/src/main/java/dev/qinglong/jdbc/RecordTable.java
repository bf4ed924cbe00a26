package dev.qinglong.jdbc;

import static dev.qinglong.jdbc.JdbcRows.nullableLong;
import static dev.qinglong.jdbc.JdbcRows.setNullableLong;

import dev.qinglong.core.kernel.Sha256Digest;
import dev.qinglong.core.kernel.WireNamed;
import dev.qinglong.core.modelquota.QuotaWindow;
import dev.qinglong.core.modelquota.TokenUsage;
import dev.qinglong.core.modelquota.WindowBudget;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A table that holds one record type: one column per record component, in component order, named
 * after the component in snake case ({@code windowStartMs} is {@code window_start_ms}); a {@link
 * QuotaWindow} is stored as its length ({@code window_ms}), a {@link WindowBudget} as three columns
 * ({@code budget_max_invocations}, …) and a {@link TokenUsage} as {@code input_tokens}, {@code
 * output_tokens} and {@code total_tokens}, all null when unknown. So a row's mapping is its
 * record's declaration: it reads a row into the record, binds the record's values (for its INSERT,
 * or for a procedure that takes them in the same order) and writes the column lists.
 */
public final class RecordTable<R extends Record> {
  private final String table;
  private final List<Part> parts = new ArrayList<>();
  private final List<String> columns = new ArrayList<>();
  private final MethodHandle constructor;
  private final String insert;
  private final String select;
  private final String what;

  private record Part(Codec codec, int width, MethodHandle accessor) {}

  private RecordTable(String table, Class<R> type) {
    this.table = table;
    RecordComponent[] components = type.getRecordComponents();
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    try {
      for (RecordComponent component : components) {
        Codec codec = codec(component.getType());
        String snake = component.getName().replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT);
        List<String> names = codec.names().apply(snake);
        columns.addAll(names);
        MethodHandle accessor =
            lookup.unreflect(component.getAccessor()).asType(MethodType.genericMethodType(1));
        parts.add(new Part(codec, names.size(), accessor));
      }
      Class<?>[] types =
          Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
      constructor =
          lookup
              .unreflectConstructor(type.getDeclaredConstructor(types))
              .asSpreader(Object[].class, types.length)
              .asType(MethodType.genericMethodType(1));
      select = "SELECT " + String.join(", ", columns) + " FROM " + table + "\n";
      what = type.getSimpleName().replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
      insert =
          "INSERT INTO %s (%s) VALUES (%s)"
              .formatted(table, String.join(", ", columns), JdbcRows.parameters(columns.size()));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no canonical mapping for " + type, e);
    }
  }

  /** The table {@code table} of {@code type}. */
  public static <R extends Record> RecordTable<R> of(String table, Class<R> type) {
    return new RecordTable<>(table, type);
  }

  /** The table's name. */
  public String name() {
    return table;
  }

  /** The column names, in the order this table reads and binds them. */
  public List<String> columns() {
    return List.copyOf(columns);
  }

  /** {@code SELECT <columns> FROM <table>} and a line break, for a WHERE clause to follow. */
  public String select() {
    return select;
  }

  /**
   * The first row {@code where} selects for {@code parameters} ({@link JdbcRows#bind}), or null.
   */
  public R first(Connection c, String where, Object... parameters) throws SQLException {
    return one(c, select + where, parameters);
  }

  /** Every row {@code where} selects for {@code parameters} ({@link JdbcRows#bind}), in order. */
  public List<R> all(Connection c, String where, Object... parameters) throws SQLException {
    return JdbcRows.all(c, select + where, what, rs -> read(rs, 1), parameters);
  }

  /** The first row of {@code sql}, which returns this table's columns, or null. */
  public R one(Connection c, String sql, Object... parameters) throws SQLException {
    return JdbcRows.one(c, sql, what, rs -> read(rs, 1), parameters);
  }

  /** The record in the columns from {@code at} on, in {@link #columns} order. */
  @SuppressWarnings("unchecked")
  public R read(ResultSet rs, int at) throws SQLException {
    Object[] values = new Object[parts.size()];
    int i = at;
    for (int p = 0; p < values.length; p++) {
      values[p] = parts.get(p).codec().reader().read(rs, i);
      i += parts.get(p).width();
    }
    return (R) call(constructor, values);
  }

  /**
   * Binds the record's values, in {@link #columns} order, from parameter {@code at} on.
   *
   * @return the index after the last bound parameter
   */
  public int bind(PreparedStatement ps, int at, R value) throws SQLException {
    int i = at;
    for (Part part : parts) {
      part.codec().binder().bind(ps, i, call(part.accessor(), value));
      i += part.width();
    }
    return i;
  }

  /** Inserts {@code value} as one row. */
  public void insert(Connection c, R value) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      bind(ps, 1, value);
      ps.executeUpdate();
    }
  }

  /** Calls a handle of type {@code (Object)Object}; what it throws comes out unchanged. */
  private static Object call(MethodHandle handle, Object argument) {
    try {
      return (Object) handle.invokeExact(argument);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  private interface Reader {
    Object read(ResultSet rs, int at) throws SQLException;
  }

  private interface Binder {
    void bind(PreparedStatement ps, int at, Object value) throws SQLException;
  }

  /** How a component of one type is named, read and bound: its columns from {@code at} on. */
  private record Codec(Function<String, List<String>> names, Reader reader, Binder binder) {
    Codec(Reader reader, Binder binder) {
      this(List::of, reader, binder);
    }
  }

  private static Codec codec(Class<?> type) {
    if (type == String.class) {
      return new Codec(ResultSet::getString, (ps, i, v) -> ps.setString(i, (String) v));
    }
    if (type == long.class) {
      return new Codec(ResultSet::getLong, (ps, i, v) -> ps.setLong(i, (Long) v));
    }
    if (type == Long.class) {
      return new Codec(JdbcRows::nullableLong, (ps, i, v) -> setNullableLong(ps, i, (Long) v));
    }
    if (type == Sha256Digest.class) {
      return new Codec(
          (rs, i) -> new Sha256Digest(rs.getString(i)),
          (ps, i, v) -> ps.setString(i, ((Sha256Digest) v).value()));
    }
    if (type == QuotaWindow.class) {
      return new Codec(
          name -> List.of(name + "_ms"),
          (rs, i) -> QuotaWindow.ofMillis(rs.getLong(i)),
          (ps, i, v) -> ps.setLong(i, ((QuotaWindow) v).millis()));
    }
    if (type == WindowBudget.class) {
      return new Codec(
          name -> suffixed(name, "_max_invocations", "_max_tokens", "_max_cost_micros"),
          (rs, i) ->
              new WindowBudget(
                  nullableLong(rs, i), nullableLong(rs, i + 1), nullableLong(rs, i + 2)),
          (ps, i, v) -> {
            WindowBudget b = (WindowBudget) v;
            setNullableLong(ps, i, b.maxInvocations());
            setNullableLong(ps, i + 1, b.maxTokens());
            setNullableLong(ps, i + 2, b.maxCostMicros());
          });
    }
    if (type == TokenUsage.class) {
      return new Codec(
          name -> List.of("input_tokens", "output_tokens", "total_tokens"),
          RecordTable::usage,
          (ps, i, v) -> {
            TokenUsage u = (TokenUsage) v;
            setNullableLong(ps, i, u == null ? null : u.inputTokens());
            setNullableLong(ps, i + 1, u == null ? null : u.outputTokens());
            setNullableLong(ps, i + 2, u == null ? null : u.totalTokens());
          });
    }
    // Last: QuotaWindow is wire-named too, but stored as its length (above).
    if (WireNamed.class.isAssignableFrom(type) && type.isEnum()) {
      return new Codec(
          (rs, i) -> wireConstant(type, rs.getString(i)),
          (ps, i, v) -> ps.setString(i, ((WireNamed) v).wireName()));
    }
    throw new IllegalArgumentException("no column mapping for " + type);
  }

  private static List<String> suffixed(String name, String... suffixes) {
    return Arrays.stream(suffixes).map(suffix -> name + suffix).toList();
  }

  /** The constant of the {@link WireNamed} enum {@code type} stored as {@code wireName}. */
  private static Object wireConstant(Class<?> type, String wireName) {
    for (Object constant : type.getEnumConstants()) {
      if (((WireNamed) constant).wireName().equals(wireName)) {
        return constant;
      }
    }
    throw new IllegalStateException("unknown stored " + type.getSimpleName() + " " + wireName);
  }

  /** Input, output and total tokens: all null (unknown) or all set. */
  private static TokenUsage usage(ResultSet rs, int first) throws SQLException {
    Long input = nullableLong(rs, first);
    Long output = nullableLong(rs, first + 1);
    Long total = nullableLong(rs, first + 2);
    if (input == null && output == null && total == null) {
      return null;
    }
    if (input == null || output == null || total == null) {
      throw new IllegalStateException("partial token usage");
    }
    return new TokenUsage(input, output, total);
  }
}
