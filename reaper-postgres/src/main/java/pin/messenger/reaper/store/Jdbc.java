package pin.messenger.reaper.store;

import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * JDBC helpers shared by the store's classes: parameter and column conversions, reading rows, error
 * classification, and ending a connection. No SQL text: each class owns the SQL of its table
 * access.
 */
final class Jdbc {
  private Jdbc() {}

  /**
   * Rolls back and returns a connection, ignoring failures of a connection that is already dead.
   */
  static void endQuietly(@Nullable Connection c) {
    if (c == null) {
      return;
    }
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // The connection may be gone (server ended it); the pool discards it on close.
    }
    try {
      c.close();
    } catch (SQLException ignored) {
      // Nothing more to free.
    }
  }

  /**
   * PostgreSQL error classes that mean "this row's data cannot be written", not "the database is
   * unwell".
   */
  static boolean isDataError(SQLException e) {
    String state = e.getSQLState();
    return state != null
        && (state.startsWith("22") // data exception
            || state.startsWith("23") // integrity constraint violation
            || state.startsWith("P0")); // raised by a trigger or function
  }

  /**
   * SQLState and the first line of the server message: no row contents (the DETAIL line may carry
   * values).
   */
  static String describe(SQLException e) {
    String message = String.valueOf(e.getMessage());
    int nl = message.indexOf('\n');
    if (nl >= 0) {
      message = message.substring(0, nl);
    }
    if (message.length() > 500) {
      message = message.substring(0, 500);
    }
    String described = "[" + e.getSQLState() + "] " + message;
    return preparedStatementsLost(e) ? described + POOLER_HINT : described;
  }

  /** What to do when a transaction-pooling proxy loses the driver's server-side statements. */
  static final String POOLER_HINT =
      " (the connection's prepared statements were not there: behind a transaction-pooling proxy"
          + " such as PgBouncer before 1.21, add prepareThreshold=0 to the JDBC URL; README,"
          + " 'Behind PgBouncer')";

  /**
   * The errors pgjdbc's server-side prepared statements give behind transaction pooling, where the
   * next transaction may run on another server session: "does not exist" (26000), "already exists"
   * (42P05), or a name that now belongs to another statement ("bind message supplies …", 08P01).
   */
  static boolean preparedStatementsLost(SQLException e) {
    String state = e.getSQLState();
    String message = String.valueOf(e.getMessage());
    return ("26000".equals(state) || "42P05".equals(state) || "08P01".equals(state))
        && message.contains("prepared statement");
  }

  static @Nullable OffsetDateTime ts(@Nullable Instant i) {
    return i == null ? null : OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
  }

  static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  static UUID uuid(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, UUID.class);
  }

  static List<UUID> uuids(ResultSet rs, String column) throws SQLException {
    Array a = rs.getArray(column);
    if (a == null) {
      return List.of();
    }
    try {
      return Arrays.asList((UUID[]) a.getArray());
    } finally {
      a.free();
    }
  }

  static Array uuidArray(Connection c, List<UUID> values) throws SQLException {
    return c.createArrayOf("uuid", values.toArray());
  }

  static Array textArray(Connection c, List<String> values) throws SQLException {
    return c.createArrayOf("text", values.toArray());
  }

  static Array bigintArray(Connection c, List<Long> values) throws SQLException {
    return c.createArrayOf("bigint", values.toArray());
  }

  private static final tools.jackson.databind.json.JsonMapper JSON =
      tools.jackson.databind.json.JsonMapper.builder().build();

  /**
   * A jsonb array value as read by {@code getObject} (a {@code PGobject}, or its text) as a list;
   * empty for null or anything that is not an array.
   */
  static List<Object> jsonList(@Nullable Object value) {
    if (value == null) {
      return List.of();
    }
    String text =
        value instanceof org.postgresql.util.PGobject pg ? pg.getValue() : value.toString();
    if (text == null) {
      return List.of();
    }
    Object parsed = JSON.readValue(text, Object.class);
    if (parsed instanceof List<?> list) {
      return new java.util.ArrayList<>(list);
    }
    return List.of();
  }

  /**
   * Every row of a query as a column map in the statement's column order, timestamps as {@link
   * Instant}: for answers whose columns are the table's own (explain's session row, the operator
   * documents).
   */
  static List<Map<String, Object>> rows(Connection c, String sql, @Nullable Object... params)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      List<Map<String, Object>> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          Map<String, Object> m = new LinkedHashMap<>();
          for (int i = 1; i <= n; i++) {
            Object v = rs.getObject(i);
            if (v instanceof Timestamp) {
              v = rs.getObject(i, OffsetDateTime.class).toInstant();
            }
            m.put(rs.getMetaData().getColumnLabel(i), v);
          }
          out.add(m);
        }
      }
      return out;
    }
  }

  /**
   * Every row of a query as a record, much as Spring's {@code DataClassRowMapper} does: each
   * component reads the column of its name in snake case ({@code xactStart} reads {@code
   * xact_start}); {@link Instant} from a timestamp, a {@link List} from a JSON array (text or
   * jsonb), anything else as the driver converts it. A record the statement does not fit fails at
   * its first row.
   */
  static <R extends Record> List<R> records(
      Connection c, Class<R> type, String sql, @Nullable Object... params) throws SQLException {
    RecordComponent[] components = type.getRecordComponents();
    Class<?>[] types =
        Arrays.stream(components).map(RecordComponent::getType).toArray(Class[]::new);
    Constructor<R> constructor;
    try {
      constructor = type.getDeclaredConstructor(types);
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(type + " has no canonical constructor", e);
    }
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      List<R> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          @Nullable Object[] values = new Object[components.length];
          for (int i = 0; i < components.length; i++) {
            values[i] = column(rs, snakeCase(components[i].getName()), types[i]);
          }
          try {
            out.add(constructor.newInstance(values));
          } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getSimpleName(), e);
          }
        }
      }
      return out;
    }
  }

  private static @Nullable Object column(ResultSet rs, String column, Class<?> type)
      throws SQLException {
    if (type == Instant.class) {
      return instant(rs, column);
    }
    if (type == List.class) {
      return jsonList(rs.getObject(column));
    }
    Class<?> boxed = type.isPrimitive() ? MethodType.methodType(type).wrap().returnType() : type;
    return rs.getObject(column, boxed);
  }

  /** {@code xactStart} → {@code xact_start}: the column a record component reads. */
  static String snakeCase(String name) {
    return name.replaceAll("([A-Z])", "_$1").toLowerCase(Locale.ROOT);
  }
}
